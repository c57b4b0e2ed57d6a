"""What kind of change a release-note line and its PR are: does it ship, is it a fix, which section.

Why apart from `evidence.py`: these read the change's own words (its conventional-commit type and scope,
its first verb), not what it shares with the problem.
"""

from __future__ import annotations

import re

from indexer.release_notes import classify_bullet, commit_prefix
from wif_action import lexicon
from wif_action.lexicon.terms import analyse
from wif_action.models import Entry, PullRequest

# A change whose conventional-commit type or scope is in lexicon `no_ship_types`/`no_ship_scopes` never reaches
# the customer's app (CI, docs, tests, samples, internal tooling), so it cannot be the fix of their symptom.


def says_fix(headline: str) -> bool:
    """Whether the headline says it fixes something ("Fix …", "fix(x): …", "Prevent …", "Handle …")."""
    return bool(lexicon.pattern("fix_headline").match(headline)) or states_failure(headline)


def fix_verb(headline: str) -> bool:
    """Whether the headline says with a verb what it fixes ("Fix …", "fix(x): prevent …"), or says that its subject
    failed ("… masking not working inside scroll view"); a `fix:` commit type alone only files the change as a fix."""
    return bool(lexicon.pattern("fix_verb_headline").match(headline)) or states_failure(headline)


def states_failure(headline: str) -> bool:
    """Whether the headline says its subject failed ("… not working …", "… didn't work") or opens by naming the bug
    ("An issue that the processor is not applied …", lexicon `bug_named_first`): a bug named as such."""
    return bool(lexicon.pattern("states_failure").search(headline[:int(lexicon.weight("headline_chars"))])
                or lexicon.pattern("bug_named_first").match(headline))


def section_of(entry: Entry, pr: PullRequest) -> str:
    """The entry's section; under a mixed heading ("Various fixes & improvements": `other`), the PR title's
    conventional-commit type says what the change is ("feat(celery): …" is a feature, "fix: …" a fix)."""
    if entry.section != "other":
        return entry.section
    implied = classify_bullet(pr.title) if commit_prefix(pr.title) is not None else None
    return implied or entry.section


def ships_to_users(headline: str, asked: frozenset[str] = frozenset()) -> bool:
    """False when a `type(scope):` prefix says the change is CI, docs, tests, samples or internal, or when its
    first words change only documentation ("Update `strict` docstring in `model_validate`", "Improve README"), or
    it places the change in the project's examples ("Fix … in example code", lexicon `examples_only`).

    `asked`: the problem's term keys. A scope of lexicon `used_scopes` that the problem itself is about names a
    part the customer uses: "fix(test): handle deduped events when collecting" fixes the SDK's test helpers, which
    ship, when the customer asks about their tests ("in our tests, the collected reports …"); the commit type
    ("test: …") still says test-only, and a problem naming "CI" or an "internal service" frees no scope."""
    if lexicon.pattern("docs_only").match(headline) or lexicon.pattern("examples_only").search(headline):
        return False
    prefix = commit_prefix(headline)
    if prefix is None:
        return True
    kind, scope = prefix
    scopes = {part.strip().lower() for part in re.split(r"[,/ ]", scope) if part.strip()}
    unshipped = {part for part in scopes & lexicon.words("no_ship_scopes")
                 if part not in lexicon.words("used_scopes") or not {term.key for term in analyse(part)} & asked}
    return kind not in lexicon.words("no_ship_types") and not unshipped
