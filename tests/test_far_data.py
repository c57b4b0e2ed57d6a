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
