"""Release-notes parser against the real release bodies in tests/data/github and the eval cases."""

from __future__ import annotations

import gzip
import json
import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from packaging.version import Version

from indexer.bumps import bundled_name, parse_bumps
from indexer.registry import load_registry
from indexer.release_notes import SECTIONS, ReleaseNoteEntry, classify_bullet, classify_heading, parse_release_notes

DATA = Path(__file__).parent / "data"
FIXTURES = sorted((DATA / "github").glob("*.json.gz"))
MIN_RATIO = 0.95

# Independent, deliberately simple detection of "a bullet that cites a PR".
_LIST_LINE = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(.*)")
_HEADING = re.compile(r"^#{1,6}\s+(.*)")
_HASH_NUMBER = re.compile(r"(?<![\w&/])#(\d+)\b")
_PULL_URL = re.compile(r"/pull/(\d+)")


@cache
def _fixture(path: Path) -> dict[str, Any]:
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return json.load(handle)


@cache
def _parsed(path: Path) -> dict[str, list[ReleaseNoteEntry]]:
    data = _fixture(path)
    return {r["tag_name"]: parse_release_notes(r["body"], data["repo"]) for r in data["releases"]}


def _fixture_for(repo: str) -> Path:
    return DATA / "github" / f"{repo.replace('/', '__')}.json.gz"


def _other_repo_links(repo: str) -> re.Pattern[str]:
    """Links/URLs to other repositories: their numbers are not this repository's PRs."""
    other = rf"https?://(?:github-redirect\.dependabot\.com|github\.com)/(?!{re.escape(repo)}/)"
    return re.compile(rf"\[[^\]]*\]\({other}[^)]*\)|{other}\S+", re.IGNORECASE)


def _cited_bullets(body: str, repo: str) -> list[tuple[str, list[int]]]:
    """(line, numbers) for list lines citing ``#N``/``/pull/N``, outside code, deps and contributors."""
    other = _other_repo_links(repo)
    found: list[tuple[str, list[int]]] = []
    in_fence = excluded = False
    for line in (body or "").splitlines():
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            in_fence = not in_fence
            continue
        heading = _HEADING.match(stripped)
        if in_fence or heading:
            if heading:
                lower = heading.group(1).lower()
                excluded = "depend" in lower or "deps" in lower or "contributor" in lower
            continue
        item = _LIST_LINE.match(line)
        if not item or excluded or "first contribution" in line:
            continue
        text = other.sub(" ", item.group(1))
        numbers = [int(n) for n in _HASH_NUMBER.findall(text) + _PULL_URL.findall(text)]
        if numbers:
            found.append((stripped, numbers))
    return found


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name.split(".")[0])
def test_cited_bullets_produce_entries(path: Path) -> None:
    data = _fixture(path)
    parsed = _parsed(path)
    total = hits = 0
    misses: list[str] = []
    for release in data["releases"]:
        cited = {n for e in parsed[release["tag_name"]] for n in e.prs + e.issues}
        for line, numbers in _cited_bullets(release["body"], data["repo"]):
            total += 1
            if any(n in cited for n in numbers):
                hits += 1
            else:
                misses.append(f"{release['tag_name']}: {line[:120]}")
    ratio = hits / total if total else 1.0
    assert total > 0
    assert ratio >= MIN_RATIO, f"{data['repo']}: {hits}/{total} = {ratio:.4f}; misses: {misses[:10]}"


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name.split(".")[0])
def test_real_bodies_keep_invariants(path: Path) -> None:
    data = _fixture(path)
    parsed = _parsed(path)
    for release in data["releases"]:
        body = release["body"] or ""
        entries = parsed[release["tag_name"]]
        assert [e.position for e in entries] == list(range(len(entries)))
        for entry in entries:
            assert entry.section in SECTIONS
            assert len(entry.text) <= 4000
            assert "```" not in entry.text
            assert len(set(entry.prs)) == len(entry.prs)
            assert all(str(n) in entry.text for n in entry.prs), entry
            assert all(str(n) in body for n in entry.prs + entry.issues), entry


def _eval_cases() -> list[dict[str, Any]]:
    lines = (DATA / "eval" / "cases.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def _expected_refs() -> list[tuple[str, str, str, int, str]]:
    """(case id, repo, release, pr, role) for every PR an eval case names."""
    refs = []
    for case in _eval_cases():
        expect = case["expect"]
        repo, release = case["repo"], expect.get("fixed_in")
        if expect.get("via"):  # bundled_fix: the PR is in the bundled SDK's release ("sentry-cocoa 8.13.1")
            repo, release = expect["pr_repo"], expect["via"].split()[-1]
        for pr in expect.get("prs", []) if release else []:
            refs.append((case["id"], repo, release, pr, case["category"]))
        for other in expect.get("must_not_claim", []) + expect.get("also_acceptable", []):
            refs.append((case["id"], case["repo"], other["fixed_in"], other["pr"], "fix"))
    return refs


def _evidence_heading(case_id: str, release: str) -> str | None:
    """Section label the evidence quotes for a release ("" when it says no heading)."""
    case = next(c for c in _eval_cases() if c["id"] == case_id)
    match = re.search(rf"{re.escape(release)} \((?:section \"([^\"]*)\"|(no section heading))\)", case["evidence"])
    if not match:
        return None
    return match.group(1) or ""


EXPECTED = _expected_refs()


def test_eval_cases_have_expectations() -> None:
    assert len(EXPECTED) >= 40


@pytest.mark.parametrize(
    ("case_id", "repo", "release", "pr", "role"), EXPECTED, ids=[f"{c}-{p}" for c, _, _, p, _ in EXPECTED]
)
def test_eval_evidence_pr_is_an_entry(case_id: str, repo: str, release: str, pr: int, role: str) -> None:
    entries = [e for e in _parsed(_fixture_for(repo))[release] if pr in e.prs]
    assert entries, f"{case_id}: PR {pr} not parsed from {repo} {release}"
    entry = entries[0]
    if role == "feature":
        assert entry.section == "feature", entry
        return
    label = _evidence_heading(case_id, release)
    generic_heading = label is not None and classify_heading(label) in (None, "other")
    if entry.section != "fix":
        # "Reset DedupeIntegration's last-seen (#4142)" under "Various fixes & improvements"
        assert generic_heading and entry.section == "other", entry
        assert classify_bullet(entry.text) != "fix", entry


BUNDLED = [(c["id"], c["repo"], c["expect"]["fixed_in"], c["expect"]["pr_repo"], c["expect"]["via"])
           for c in _eval_cases() if c["category"] == "bundled_fix"]


@pytest.mark.parametrize(("case_id", "repo", "release", "bundled", "via"), BUNDLED, ids=[b[0] for b in BUNDLED])
def test_bundled_cases_release_has_a_bump_covering_the_fix(case_id: str, repo: str, release: str, bundled: str,
                                                            via: str) -> None:
    """The host release of every bundled case announces a bump whose range holds the bundled release."""
    registry = load_registry()
    fixed = Version(via.split()[-1])
    bumps = [b for e in _parsed(_fixture_for(repo))[release] for b in parse_bumps(e.text)
             if registry.bundles(repo).get(bundled_name(b.name)) == bundled]
    assert any(b.to_version is not None and b.to_version >= fixed and (b.from_version is None or b.from_version < fixed)
               for b in bumps), (case_id, [b.text for b in bumps])


def test_cross_repository_references_are_not_claimed() -> None:
    java = _parsed(_fixture_for("getsentry/sentry-java"))["2.0.0-rc01"]
    assert java and all(e.prs == () for e in java)  # links point at getsentry/sentry-android
    rn = _parsed(_fixture_for("getsentry/sentry-react-native"))["5.12.0"]
    bumps = [e for e in rn if e.section == "dependency"]
    assert [e.prs for e in bumps] == [(3344, 3365), (3340,), (3341,)]


def test_mid_sentence_reference_is_kept_in_text_only() -> None:
    entries = _parsed(_fixture_for("getsentry/sentry-react-native"))["8.20.0"]
    entry = next(e for e in entries if 6491 in e.prs)
    assert entry.prs == (6491, 6497)
    assert "#6380" in entry.text


# Bodies in formats the fixture repositories do not use, so their parsing is part of the digest too.
FORMAT_SAMPLES = (
    "## [1.2.0] - 2024-01-01\n### Added\n- New `foo` option (#10)\n### Fixed\n- Crash when bar is empty (#11)\n",
    "## What's Changed\n* Fix crash on start by @alice in https://github.com/acme/widget/pull/45\n",
    "### Bug Fixes\n\n* **client:** handle timeouts ([#88](https://github.com/acme/widget/issues/88)) "
    "([abc1234](https://github.com/acme/widget/commit/abc1234))\n",
    "### Bugfixes\n\n- Fixed a leak -- by :user:`alice`.\n\n  *Related issues and pull requests on GitHub:*\n"
    "  :issue:`1234`.\n",
    "Bugfixes\n--------\n\n- Fix crash when X (`#501 <https://github.com/acme/widget/issues/501>`_)\n",
    "### Patch Changes\n\n- [#1234](https://github.com/acme/widget/pull/1234) [`abc1234`](https://github.com/"
    "acme/widget/commit/abc1234) Thanks [@alice](https://github.com/alice)! - Fix hydration error\n",
    "## 🐛 Bug Fixes\n- Fix login (#7)\n## 🧰 Maintenance\n- fix: crash (#8)\n- Update CI (#9)\n",
    "<h3>Bug Fixes</h3><ul><li>Fix A (<a href=\"https://github.com/acme/widget/pull/3\">#3</a>)</li></ul>",
    "## Changelog\n### Bug fixes\n* 1a2b3c4d fix(api): nil pointer on empty body\n",
    "### Fixes\n\n- [#123] Don't panic on empty input\n\n### Known issues\n\n- Crash on start (#124)\n",
    "### Bug fixes (2 changes)\n\n- Fix the thing (#5)\n",
    "### Bug Fixes\n\n* **client:** preserve query params on base_url (92e109c)\n",
    "Bugfixes\n--------\n\n- Fixed ``HTTPConnectionPool`` with no explicit port.\n"
    "  (`#3664 <https://github.com/acme/widget/issues/3664>`__)\n",  # towncrier rst with ``literals`` (urllib3)
    "* Bug Fixes\n  * Fix issue from using spawn\\_link stacktrace (#315)\n  * Relax plug\\_cowboy versions (#314)\n"
    "* Enhancements\n  * Implement `Sentry.LoggerBackend`\n",  # sections as list items (old sentry-elixir)
    "Bugfixes:\n* [#554][], [#1017][]: Close JSON namespaces.\n\n[#1017]: https://github.com/acme/widget/pull/1017\n",
    # zap: a leading group of Markdown reference links
    "This release fixes a regression where the unix socket api stopped accepting\nthe abstract socket namespace. "
    "([#6772])\n\n[#6772]: https://github.com/acme/widget/pull/6772\n",  # prose, no list (tokio patch releases)
    "### Patch Changes\n\n- [`fdd46bd`](https://github.com/acme/widget/commit/fdd46bd) [#21](https://github.com/"
    "acme/widget/pull/21) Thanks [@a](https://github.com/a)! - Fixed tree shaking\n\n- Updated dependencies "
    "[[`8dc1a6d`](https://github.com/acme/widget/commit/8dc1a6d)]:\n  - @acme/cache@1.2.0\n",  # older changesets
    "* Bug fix: rewind seekable request bodies before dispatching to cURL.\n  https://github.com/acme/widget/pull/1422\n"
    "* Improvement: added a `stream` option.\n* BC break: removed `Client::sendAll`.\n",  # guzzle 6.x kind labels
    "**Enhancements**\n\n* fix(binder): include field name in bind conversion errors (#2629) by @vishr in "
    "https://github.com/acme/widget/pull/3005\n* docs: typos by @x in https://github.com/acme/widget/pull/3001\n",
    # echo: GitHub's generated notes pasted into the CHANGELOG
    "* [#2734](https://github.com/acme/widget/pull/2734) Fix parseHeader to return undefined instead of NaN\n"
    "* [#2790](https://github.com/acme/widget/pull/2790) Bump brace-expansion from 1.1.11 to 1.1.16\n",
    # stripe-node: heading-less lines led by their PR
    "#### Bug Fixes\n\n* **http1:**\n  * discard content-length header (#4124) ([540fff91](https://github.com/acme/widget/"
    "commit/540fff9180ce47ee5fab01b6cc2126eb6c286eda), closes [#4123](https://github.com/acme/widget/issues/4123))\n"
    "  * use append for repeat trailers (#4107)\n* **http2:** avoid buffering writes (#4102)\n",  # hyper's clog
)
# release_notes.PARSER_VERSION → digest of what it parses the fixtures and samples to.
PARSER_DIGESTS = {3: "33f3cb90770f00295f203047818ec1c52aded0f26ec3ea188bba9acffdb3805c",  # 3: with commits
                  4: "40ebc2371b34c3858e9c6e140d5d55c9453add80f448c5e1742477cf7a652cd4",  # 4: ``literal`` spans
                  5: "fa953301d3d489ae87bb6c4715f7e2829a4ee9728f60d5642b7951fcb24f280b",  # 5: sections as list items
                  6: "54b3f2395eda8a86cffeed988e70cbabad62df4899d26099dec91ca232425f2d",  # 6: leading reference groups
                  7: "4644edd2b7aee01bc3fba88d9d434b2b8a246a823340a84c0465d9780f2c280a",  # 7: prose bodies
                  8: "3a74dffef588498dd02c0663a8e918ab5506e509adb5d7a6ed92d4bcca34fdcf",  # 8: older changesets
                  # 9: the entries are 8's; bump lines are read in more wordings, so bundle_bumps are rebuilt
                  9: "3a74dffef588498dd02c0663a8e918ab5506e509adb5d7a6ed92d4bcca34fdcf",
                  10: "45b9cd8caea841981ae934bb42f65783aa864e23fe528afe638333f5244c1040",  # 10: kind labels
                  # 11: a fix type over feature-like headings, an issue before an explicit PR link
                  11: "761ea59d43a0440107ecd66100ceba828a10645d371f20bc3c281de7fb50c2db",
                  # 12: a line led by its PR reference is classified by the words after it
                  12: "5edecf80e3f90735c1314a2b9817be323d6fde22fd67eb0e67890579d3225207",
                  # 13: a leading bracketed kind tag ("[Bug] …", "[Docs] …") is the line's section
                  13: "f051ba5825bd8103a49c2af604627f1364034ffad8ca60884ba5fc2c78e1825e",
                  # 14: the items nested under a scope-only item ("* **http1:**") are entries of their own
                  14: "2ab4602c9532d57dcc3e0da7145e68ed7d91d24ab0e7061a35151ebe7604e87f",
                  # 15: another repository's commit links kept as `owner/repo@sha` among the line's commits
                  15: "114df20660c917b3b562ddafa38d8dd9ae0cc9a5a928373cd06ef165969adfc9",
                  # 16: "Add" / "Remove" headings read as "Added" / "Removed" (no fixture body has one: 15's digest)
                  16: "114df20660c917b3b562ddafa38d8dd9ae0cc9a5a928373cd06ef165969adfc9"}


@pytest.mark.slow
def test_parser_output_changes_only_with_a_new_parser_version() -> None:
    """A cache re-parses its stored bodies when PARSER_VERSION rises (indexer.store.reparse_if_stale): a parser
    change that alters entries without raising it would leave existing caches on the old entries."""
    import hashlib

    from indexer.release_notes import PARSER_VERSION
    digest = hashlib.sha256()
    bodies = [(r["body"], _fixture(path)["repo"]) for path in FIXTURES for r in _fixture(path)["releases"]]
    for body, repo in bodies + [(sample, "acme/widget") for sample in FORMAT_SAMPLES]:
        for e in parse_release_notes(body, repo):
            digest.update(repr((e.section, e.heading, e.text, e.prs, e.issues, e.position, e.commits)).encode())
        digest.update(b"\0")
    assert PARSER_DIGESTS.get(PARSER_VERSION) == digest.hexdigest(), (
        f"The parser's output changed: raise release_notes.PARSER_VERSION and record {digest.hexdigest()} for it.")
