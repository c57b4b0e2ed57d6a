"""bench/far_data.py and bench/near_pick.py read the release-note formats of the labelled repositories.

Why: a version heading or PR reference they miss silently drops a release or a PR from the data a case is
labelled against (urllib3's towncrier CHANGES.rst: `=`-underlined versions, `` `#N <…>`__ `` references).
"""

from __future__ import annotations

from bench.far_data import PR_REF, sections
from bench.near_pick import fix_lines

TOWNCRIER = """2.6.0 (2025-12-05)
==================

Bugfixes
--------

- Fixed ``HTTPConnectionPool`` when used in Emscripten with no explicit port.
  (`#3664 <https://github.com/urllib3/urllib3/issues/3664>`__)


2.5.0 (2025-06-18)
==================

Features
--------

- Added support for the ``compression.zstd`` module.
  (`#3610 <https://github.com/urllib3/urllib3/issues/3610>`__)
"""


def test_rst_version_headings_split_the_sections() -> None:
    assert [version for version, _ in sections(TOWNCRIER)] == ["2.6.0", "2.5.0"]


def test_rst_references_are_read() -> None:
    assert [int(n) for n in PR_REF.findall(TOWNCRIER)] == [3664, 3610]


def test_fix_lines_of_rst_sections_join_continuations() -> None:
    body = sections(TOWNCRIER)[0][1]
    assert fix_lines({"body": body}) == [("Bugfixes", "Fixed ``HTTPConnectionPool`` when used in Emscripten with no "
                                          "explicit port. (`#3664 <https://github.com/urllib3/urllib3/issues/3664>`__)")]


def test_fix_lines_keep_the_fix_heading_over_a_topic_and_skip_mixed_lists() -> None:
    body = ("### Bug Fixes 🐛\n\n#### Tracing\n\n- Report spans that outlive their sent parent in [#1163](u)\n\n"
            "### Various fixes & improvements\n\n- Support :all in metadata (#605)\n")
    assert fix_lines({"body": body}) == [("Bug Fixes 🐛", "Report spans that outlive their sent parent in [#1163](u)")]


CONVENTIONAL = """# Changelog

## [1.7.1](https://github.com/axios/axios/compare/v1.7.0...v1.7.1) (2024-05-20)


### Bug Fixes

* **fetch:** fixed ReferenceError when TextEncoder is missing; ([#6410](u/issues/6410)) ([733f15f](u))

# [1.7.0](https://github.com/axios/axios/compare/v1.7.0-beta.2...v1.7.0) (2024-05-19)

### Bug Fixes

* **core/axios:** handle un-writable error stack ([#6362](https://github.com/axios/axios/issues/6362))

# [1.7.0-beta.2](https://github.com/axios/axios/compare/v1.7.0-beta.1...v1.7.0-beta.2) (2024-05-19)

## [1.2.2] - 2022-12-29

### Fixed

- fix: add missing HttpStatusCode [#5345](https://github.com/axios/axios/pull/5345)
"""


def test_conventional_changelog_headings_with_links_and_one_hash_minors_split_the_sections() -> None:
    """axios: `## [X.Y.Z](…compare…) (date)` patches, `# [X.Y.Z](…)` minors (1.3.0–1.7.0 were lost without
    them), older `## [X.Y.Z] - date`; a pre-release heading still ends the section above it."""
    found = sections(CONVENTIONAL)
    assert [version for version, _ in found] == ["1.7.1", "1.7.0", "1.2.2"]
    assert "#6362" in found[1][1] and "beta" not in found[1][1]
    assert [fix_lines({"body": body})[0][0] for _, body in found] == ["Bug Fixes", "Bug Fixes", "Fixed"]


AIOHTTP = """3.11.13 (2025-02-24)
====================

Bug fixes
---------

- Changed connection creation to explicitly close sockets if an exception is raised -- by :user:`top-oai`.


  *Related issues and pull requests on GitHub:*
  :issue:`10464`.



- Fixed reading fragmented WebSocket messages when the payload was masked -- by :user:`bdraco`.

  The problem first appeared in 3.11.17


  *Related issues and pull requests on GitHub:*
  :issue:`10764`, :pr:`10765`.
"""


def test_towncrier_role_references_in_a_paragraph_after_the_bullet_are_read() -> None:
    """aiohttp: the PR is `:issue:`N`` (or `:pr:`N``) in an indented paragraph after blank lines."""
    body = sections(AIOHTTP)[0][1]
    assert [int(n) for n in PR_REF.findall(body)] == [10464, 10764, 10765]
    lines = fix_lines({"body": body})
    assert [text.rsplit("*", 1)[-1] for _, text in lines] == [" :issue:`10464`.", " :issue:`10764`, :pr:`10765`."]
    assert "The problem first appeared in 3.11.17" in lines[1][1]


PALLETS = """.. currentmodule:: werkzeug

Version 2.0.2
-------------

Released 2021-10-05

-   Fix memory usage for locals when using Python 3.6 or pre 0.4.17
    greenlet versions. :pr:`2212`
-   Fix setting CSP header options on the response. :pr:`2237`


Version 2.0.0
-------------

Released 2021-05-11

-   The interactive debugger highlights frames that come from user code. :pr:`1421`
-   Fix connection reset when exceeding max content size. :pr:`2051`
"""


def test_pallets_version_headings_and_flat_lists_are_drawn_only_with_flat() -> None:
    """werkzeug: no section headings at all; --flat takes a patch release's bullets, and elsewhere a bullet that
    says fix/bug as a word ("debugger" is not one); without it nothing is drawn (existing draws unchanged)."""
    found = sections(PALLETS)
    assert [version for version, _ in found] == ["2.0.2", "2.0.0"]
    patch, minor = ({"name": version, "body": body} for version, body in found)
    assert [text[-10:] for _, text in fix_lines(patch, flat=True)] == [":pr:`2212`", ":pr:`2237`"]
    assert [text[-10:] for _, text in fix_lines(minor, flat=True)] == [":pr:`2051`"]
    assert fix_lines(patch) == [] and fix_lines(minor) == []


def test_a_tag_prefix_takes_one_crate_of_a_workspace(tmp_path) -> None:
    """tokio: each crate of the workspace is tagged `<crate>-X.Y.Z`; `--tag-prefix tokio-` takes tokio's own tags,
    not `tokio-util-0.7.11` (nor a plain `v1.0.0`), and keeps the prefix in the tag name."""
    import subprocess

    from bench.far_data import tag_dates

    def run(*args: str) -> None:
        subprocess.run(["git", "-C", str(tmp_path), *args], check=True, capture_output=True)

    run("init", "-q")
    run("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "one")
    for tag in ("tokio-1.38.0", "tokio-util-0.7.11", "v1.0.0", "tokio-v1.39.0"):
        run("tag", tag)
    git_dir = str(tmp_path / ".git")
    assert {v: tag for v, (tag, _) in tag_dates(git_dir, "tokio-").items()} == {
        "1.38.0": "tokio-1.38.0", "1.39.0": "tokio-v1.39.0"}
    assert set(tag_dates(git_dir)) == {"1.0.0"}



def test_rev_reads_the_changelog_at_an_older_commit(tmp_path) -> None:
    """socket.io-client: the repository moved into a monorepo and its HEAD holds only a README, so the CHANGELOG is
    read at `--rev HEAD~1`; without it HEAD's missing file fails the build."""
    import subprocess

    import pytest

    from bench.far_data import build

    def run(*args: str) -> None:
        subprocess.run(["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
                       check=True, capture_output=True)

    run("init", "-q")
    (tmp_path / "CHANGELOG.md").write_text("## [1.0.1](https://x/compare/1.0.0...1.0.1) (2024-01-01)\n\n"
                                           "### Bug Fixes\n\n* keep the path ([abc1234](https://x/commit/abc1234))\n")
    run("add", "CHANGELOG.md")
    run("commit", "-q", "-m", "chore(release): 1.0.1")
    run("tag", "1.0.1")
    run("rm", "-q", "CHANGELOG.md")
    run("commit", "-q", "-m", "docs: add migration notice")
    git_dir = str(tmp_path / ".git")
    data = build("o/r", git_dir, "CHANGELOG.md", 60, rev="HEAD~1")
    assert [r["tag_name"] for r in data["releases"]] == ["1.0.1"]
    assert "keep the path" in data["releases"][0]["body"]
    with pytest.raises(subprocess.CalledProcessError):
        build("o/r", git_dir, "CHANGELOG.md", 60)

ZAP = """## 1.20.0 (4 Jan 2022)

Enhancements:
* [#989][]: Add `EncoderConfig.SkipLineEnding` flag to disable adding newline characters.

Bugfixes:
* [#1011][]: Fix inaccurate precision when encoding complex64 as JSON.
* [#554][], [#1017][]: Close JSON namespaces opened in `MarshalLogObject`
  methods when the methods return.

Thanks to @psrajat for their contributions to this release.

[#989]: https://github.com/uber-go/zap/pull/989
[#1011]: https://github.com/uber-go/zap/pull/1011
"""


def test_plain_colon_headings_over_a_list_are_sections_when_there_is_no_other_heading() -> None:
    """zap: `Bugfixes:` / `Enhancements:` lines (no `#`, no underline) head the lists; `[#N][]` references."""
    body = sections(ZAP)[0][1]
    assert fix_lines({"body": body}) == [
        ("Bugfixes", "[#1011][]: Fix inaccurate precision when encoding complex64 as JSON."),
        ("Bugfixes", "[#554][], [#1017][]: Close JSON namespaces opened in `MarshalLogObject` methods when the "
                     "methods return.")]
    assert fix_lines({"body": "### Features\n\nNote:\n- Fix x (#1)\n"}) == []


BLACK = """## Unreleased

### Stable style

- Fix crash on a comment (#5300)

## Version 26.3.0

### Stable style

<!-- Changes that affect Black's stable style -->

- Fix crash when a standalone comment sits between tokens of a comprehension or lambda
  (#5144)
- Remove redundant parentheses around generator expressions (#5304)

### Preview style

- Add a new preview feature that fixes nothing (#5200)

### Highlights

- Add parentheses around `if`-`else` expressions (#2278)

## Version 22.1.0

### Configuration

- Fix handling of directory junctions on Windows (#2904)

## Version 21.12b0

### _Black_

- Fix determination of f-string expression spans (#2654)
"""


def test_black_version_headings_end_at_a_two_part_pre_release() -> None:
    """Black: `## Version 26.3.0` headings; its beta-era `## Version 21.12b0` must end 22.1.0's section, or the
    first stable release's body swallows every beta's notes."""
    found = sections(BLACK)
    assert [version for version, _ in found] == ["26.3.0", "22.1.0"]
    assert "#2654" not in found[1][1]


def test_area_headings_are_drawn_only_with_areas() -> None:
    """Black's headings name areas ("Stable style"), not change kinds: --areas takes a bullet saying fix/bug under
    any heading that is not a feature one; without it nothing is drawn (existing draws unchanged)."""
    body = sections(BLACK)[0][1]
    assert [text[-7:] for _, text in fix_lines({"body": body}, areas=True)] == ["(#5144)", "(#5200)"]
    assert fix_lines({"body": body}) == []


COMMITS_ONLY = {
    "releases": [
        {"name": "1.1.0", "body": "### Bug Fixes\n\n* **client:** avoid memory leak ([b449f36](https://github.com/o/n/"
                                  "commit/b449f36609b727f3f147fad19e8d064225bc8621))\n* keep PR lines apart "
                                  "([#12](https://github.com/o/n/issues/12)) ([aaaaaaa](https://github.com/o/n/commit/"
                                  "aaaaaaa0000000000000000000000000000000000))\n* short hash only (1a2b3c4)\n"},
        {"name": "1.0.0", "body": "### Bug Fixes\n\n* first (#11)\n"},
    ],
    "pulls": {"11": {}, "12": {}},
}


def test_commit_draws_take_the_lines_citing_no_pr_and_one_commit() -> None:
    """release-please (openai-node): many fix lines cite only a commit; --commits draws those (the pick names the
    commit), the default draw keeps the PR lines only."""
    from bench.near_pick import draw

    picked = {pick.get("commit") or pick["pr"] for pick in draw(COMMITS_ONLY, 21, by_commit=True)}
    assert picked == {"b449f36609b727f3f147fad19e8d064225bc8621", "1a2b3c4"}
    assert {pick["pr"] for pick in draw(COMMITS_ONLY, 21)} == {11, 12}


ECHO = """**Fixes**

* fix(static): preserve matched handler 404s by @u in https://github.com/labstack/echo/pull/3043

**Enhancements**

* fix(lint): resolve staticcheck issues by @u in https://github.com/labstack/echo/pull/2941

**Full Changelog**: https://github.com/labstack/echo/compare/v5.3.0...v5.3.1
"""


def test_bold_headings_are_read_only_with_bold() -> None:
    """echo pastes GitHub's generated notes into its CHANGELOG: `**Fixes**` / `**Enhancements**` lines are its only
    headings; --bold reads a bold-only line as one (a bold lead-in with text after it is not), the default draw
    reads none (existing draws unchanged)."""
    assert [text[-4:] for _, text in fix_lines({"body": ECHO}, bold=True)] == ["3043"]
    assert fix_lines({"body": ECHO}) == []


GUZZLE_6 = """* Bug fix: rewind seekable request bodies before dispatching to cURL. https://github.com/guzzle/guzzle/pull/1422
* Fix: Gracefully handle passing `null` to the `header` option. [#2132](https://github.com/guzzle/guzzle/pull/2132)
* Improvement: Fix the docs of the `on_stats` option [#2000](https://github.com/guzzle/guzzle/pull/2000)
* Prefix fixes are only read at the start
"""


def test_kind_prefixes_are_drawn_only_with_prefixed() -> None:
    """Guzzle 6 has no section headings, each bullet leads with its kind (`Fix:`, `Bug fix:`, `Improvement:`):
    --prefixed draws the bullets whose prefix says fix/bug, and none of a body that has headings."""
    assert [text[:8] for _, text in fix_lines({"body": GUZZLE_6}, prefixed=True)] == ["Bug fix:", "Fix: Gra"]
    assert fix_lines({"body": "### Fixed\n\n" + GUZZLE_6}, prefixed=True) == []


HYPER = """## v1.11.0 (2026-07-20)


#### Bug Fixes

* **http1:**
  * discard content-length header when received before transfer-encoding (#4124) ([540fff91](https://github.com/hyperium/hyper/commit/540fff9180ce47ee5fab01b6cc2126eb6c286eda), closes [#4123](https://github.com/hyperium/hyper/issues/4123))
  * use append for repeat trailers (#4107) ([876effe1](https://github.com/hyperium/hyper/commit/876effe10fd8f8ad4535ade1f84e88f199f2cf6b))
* **http2:** avoid buffering `Upgraded` writes without send capacity (#4102) ([aecf5abf](https://github.com/hyperium/hyper/commit/aecf5abfbc3dc95f21ac1538db1aa3f690fa6ab6))


#### Features

* **rt:** add `ReadBufCursor::initialized_unfilled()` method (#4115) ([ccc1e850](https://github.com/hyperium/hyper/commit/ccc1e850dc0cda3e71b0acd11f60ca3d48d09034))


### v1.10.1 (2026-05-29)


#### Bug Fixes

* **http1:** fix busy loop when peer half-closes and open body (#4086) ([c6cb906f](https://github.com/hyperium/hyper/commit/c6cb906fdcbc3df64fc3fb613be57430e0387e48), closes [#4085](https://github.com/hyperium/hyper/issues/4085))


## v1.10.0 (2026-05-27)
"""  # noqa: E501


def test_clog_patch_releases_under_three_hashes_split_the_sections() -> None:
    """hyper's clog CHANGELOG heads minors with `##` and patches with `###`: a patch release read as part of the minor
    above it would put its fixes in the wrong release."""
    assert [version for version, _ in sections(HYPER)] == ["1.11.0", "1.10.1", "1.10.0"]


def test_clog_scope_groups_are_drawn_one_item_at_a_time_only_with_clog() -> None:
    """clog files kinds under `#### Bug Fixes` and groups a scope's items under a scope-only bullet (`* **http1:**`):
    --clog draws each nested item with its scope, without the issues it closes (so one PR is left to draw); the
    default draw reads no `####` heading (existing draws unchanged)."""
    body = sections(HYPER)[0][1]
    lines = [text for _, text in fix_lines({"body": body}, clog=True)]
    assert [line.split(" (#")[0] for line in lines] == [
        "http1: discard content-length header when received before transfer-encoding",
        "http1: use append for repeat trailers", "**http2:** avoid buffering `Upgraded` writes without send capacity"]
    assert [PR_REF.findall(line) for line in lines] == [["4124"], ["4107"], ["4102"]]
    assert fix_lines({"body": body}) == []


KOTLINX = """1.9.0 / 2025-06-27
==================

This release updates Kotlin version to 2.2.0.

## Other bugfixes
  * Fix resize in JsonPath (#2995)
  * Fixed proguard rules for obfuscation to work correctly (#2983)

1.9.0-RC / 2025-05-27
==================

  * Pre-release line (#2900)

1.8.1 / 2025-03-31
==================

### Bugfixes and improvements

* Fix TaggedDecoder nullable decoding (#2456)
* Support decoding maps with boolean keys (#2440)
"""


def test_setext_slash_date_headings_split_the_sections_and_a_pre_release_ends_one() -> None:
    """kotlinx.serialization (and express) head versions `1.9.0 / 2025-06-27` over `===`: without the heading the
    file is no release at all; a `-RC` heading must end the stable section above it."""
    found = sections(KOTLINX)
    assert [version for version, _ in found] == ["1.9.0", "1.8.1"]
    assert "#2900" not in found[0][1]


def test_mixed_headings_and_indented_lists_are_drawn_only_with_mixed() -> None:
    """kotlinx.serialization lists fixes under `Bugfixes and improvements` and indents lists two spaces: --mixed
    draws a bullet saying fix under a mixed heading and reads the indented list; the default draw reads neither."""
    new, old = (body for _, body in sections(KOTLINX))
    assert [text for _, text in fix_lines({"body": new}, mixed=True)] == [
        "Fix resize in JsonPath (#2995)", "Fixed proguard rules for obfuscation to work correctly (#2983)"]
    assert [text for _, text in fix_lines({"body": old}, mixed=True)] == ["Fix TaggedDecoder nullable decoding (#2456)"]
    assert fix_lines({"body": new}) == [] and fix_lines({"body": old}) == []


def test_flat_mixed_reads_a_heading_less_list_indented_two_spaces() -> None:
    """monolog has no sections and indents its lists two spaces (`  * Fixed … (#N)`): --flat alone reads no bullet of
    it; --flat --mixed draws a minor release's fix bullets and every bullet of a patch release."""
    body = "  * Added `$fileOpenMode` param to `StreamHandler` (#1913)\n  * Fixed PHP 8.4 deprecation notices (#1903)\n"
    assert fix_lines({"name": "3.8.0", "body": body}, flat=True) == []
    assert [text for _, text in fix_lines({"name": "3.8.0", "body": body}, flat=True, mixed=True)] == [
        "Fixed PHP 8.4 deprecation notices (#1903)"]
    assert len(fix_lines({"name": "3.8.1", "body": body}, flat=True, mixed=True)) == 2


CJSON = """1.7.19 (Sep 9, 2025)
======
Fixes:
------
* Check for NULL in cJSON_DetachItemViaPointer, fixes #882, see #886
* Add NULL check to cJSON_SetValuestring()(CVE-2024-31755), see #839 and #840

1.7.15 (Aug 25, 2021)
======
Fixes:
------
* Fix potential core dumped for strrchr, see [#546](https://github.com/DaveGamble/cJSON/pull/546)
"""


def test_cjson_setext_versions_and_bare_see_refs() -> None:
    """cJSON's `X.Y.Z (date)` over `===` versions split the sections; its newer lines cite the PR as a bare
    "see #N" after the issue they fix ("fixes #882, see #886"): the PR is read, the issue is not."""
    assert [version for version, _ in sections(CJSON)] == ["1.7.19", "1.7.15"]
    assert [PR_REF.findall(line) for line in CJSON.splitlines() if line.startswith("* ")] == [
        ["886"], ["839"], ["546", "546"]]


ABSINTHE = """## 1.5.1

- Bug Fix: [Fix nested fragments](https://github.com/absinthe-graphql/absinthe/pull/950)

## v1.5.0 (Rc)

- Breaking Change: [Scalar outputs are now type checked](https://github.com/absinthe-graphql/absinthe/pull/900)

## v1.5.0 (Beta)

- Feature: [Schema declarations](https://github.com/absinthe-graphql/absinthe/pull/800)

## 1.4.16 (Retired)

- Bug Fix: [Fix a crash](https://github.com/absinthe-graphql/absinthe/pull/700)
"""


def test_a_heading_that_calls_its_version_a_pre_release_in_words_ends_the_section_and_is_left_out() -> None:
    """Absinthe's "## v1.5.0 (Rc)" and "(Beta)" headings carry a stable-looking number: read as releases, the
    data held 1.5.0 three times with the pre-releases' notes; another word in parentheses ("(Retired)") stays."""
    assert [(version, body.splitlines()[0][-4:-1]) for version, body in sections(ABSINTHE)] == [
        ("1.5.1", "950"), ("1.4.16", "700")]


HLS = """## 2.9.0.1

- Bindists for GHC 9.10.1

### Pull Requests

- Fix completions crashing on an empty file
  ([#4301](https://github.com/haskell/haskell-language-server/pull/4301)) by @user

## 2.9.0.0-wip

- Work in progress

## 2.9.0.0

### Pull Requests

- Add a plugin
  ([#4200](https://github.com/haskell/haskell-language-server/pull/4200)) by @user
"""


def test_four_number_versions_of_haskells_versioning_policy_are_releases() -> None:
    """haskell-language-server numbers its releases `A.B.C.D` (Haskell's Package Versioning Policy): read as
    pre-releases, the data held none of them; a suffixed one ("2.9.0.0-wip") still ends the section above."""
    assert [(version, set(PR_REF.findall(body))) for version, body in sections(HLS)] == [
        ("2.9.0.1", {"4301"}), ("2.9.0.0", {"4200"})]
    release = {"name": "2.9.0.1", "body": sections(HLS)[0][1]}
    link = "https://github.com/haskell/haskell-language-server/pull/4301"
    assert fix_lines(release, areas=True) == [
        ("Pull Requests", f"Fix completions crashing on an empty file ([#4301]({link})) by @user")]
