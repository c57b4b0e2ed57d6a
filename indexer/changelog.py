"""A version's section of a CHANGELOG.md: the notes of a release whose own body is empty.

Why a module of its own: the indexer's pass fetches the file at the release's tag (`ReleaseSource.changelog_at`)
and keeps only what this finds; the heading grammar (`## [1.2.0]`, `# v1.2.0`, `## Version 1.2.0`) is the file's,
not the pass's.
"""

from __future__ import annotations

import re

from packaging.version import Version

from indexer.versions import parse_tag

_HEADING = re.compile(r"^(#{1,3})[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
_HEADING_VERSION = re.compile(r"^(?:(?:version|release)\s+)?\[?v?([^\]\s()]+)", re.IGNORECASE)


def changelog_section(text: str | None, tag: str) -> str | None:
    """The notes under `## <version>` / `## [<version>]` / `# v<version>` for `tag`, up to the
    next version heading (or a higher-level heading); None when absent or empty.

    A heading repeated for the same version (a re-tag, `v1.2.0` then `1.2.0`) yields the
    first non-empty section.
    """
    target = parse_tag(tag)
    if not text or target is None:
        return None
    headings = [(m, len(m.group(1)), _heading_version(m.group(2))) for m in _HEADING.finditer(text)]
    for index, (match, level, version) in enumerate(headings):
        if version != target:
            continue
        end = next((later.start() for later, later_level, later_version in headings[index + 1:]
                    if later_version is not None or later_level < level), len(text))
        section = text[match.end():end].strip()
        if section:
            return section
    return None


def _heading_version(title: str) -> Version | None:
    match = _HEADING_VERSION.match(title.strip())
    return parse_tag(match.group(1)) if match else None
