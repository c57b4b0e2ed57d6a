"""The PR of another repository that a release-note line without its own PR cites.

Why: pydantic's notes say "Fix … by @davidhewitt in pydantic-core#1833" — the change is a PR of
pydantic-core, and the line has no PR of pydantic itself. Judging that PR (its title and description,
from the cache or GitHub) is the evidence the line points at; without its details the candidate is never
HIGH (see `pr_evaluation`).
"""

from __future__ import annotations

import re

from indexer.registry import SLUG
from wif_action.models import Entry

_CITED = re.compile(r"(?<![\w/.#@-])(?:(?P<owner>[A-Za-z0-9][A-Za-z0-9-]{0,38})/)?(?P<name>[A-Za-z][\w.-]{0,99})"
                    r"#(?P<number>\d{1,7})(?!\w)")


def repository_names(slugs: list[str]) -> dict[str, str]:
    """Short names a line may cite a repository by ("pydantic-core") → slug, for the given repositories (the
    ones the customer's SDK bundles and the cached ones; a name two of them share is left out)."""
    names: dict[str, set[str]] = {}
    for slug in slugs:
        names.setdefault(slug.split("/", 1)[-1].lower(), set()).add(slug)
    return {name: next(iter(found)) for name, found in names.items() if len(found) == 1}


def cited_pr(entry: Entry, names: dict[str, str]) -> tuple[str, int] | None:
    """(repository, number) of the first PR of another repository the line cites, or None."""
    for match in _CITED.finditer(entry.text):
        owner, name = match.group("owner"), match.group("name")
        slug = f"{owner}/{name}" if owner else names.get(name.lower())
        if slug and SLUG.match(slug) and slug.lower() != entry.release.repo.lower():
            return slug, int(match.group("number"))
    return None
