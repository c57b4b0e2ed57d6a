"""What kind of name a registry alias is: a package name only one SDK has, an "X SDK" phrase, or a platform word.

Why here: both reading a support message (which SDK is meant) and analysing the question (an SDK's own name
says which repository, not what is wrong) weigh names the same way.
"""

from __future__ import annotations

import re

from wif_action import lexicon

# The weights of the three kinds of name: lexicon.toml [weight] alias_package, alias_sdk_phrase, alias_platform.


def is_package_weight(weight: float) -> bool:
    """A mention of this weight is a package name only one SDK has ("@sentry/react-native", "sentry_flutter")."""
    return weight >= lexicon.weight("alias_package")


def alias_kind_weight(alias: str, repo: str) -> tuple[float, bool]:
    """(weight, names the SDK itself): package names beat "X SDK" phrases beat platform words.

    Why: "sentry_flutter" or "@sentry/react-native" can only mean one SDK, while
    "Android" or "iOS" also describe where a React Native or Flutter app runs.
    """
    name = repo.split("/", 1)[-1].lower()
    if re.search(r"[@/_:]|\w\.\w|-", alias) or "sentry" in alias or alias == name:
        return lexicon.weight("alias_package"), True
    if alias.endswith(" sdk"):
        return lexicon.weight("alias_sdk_phrase"), True
    if alias in name and alias not in lexicon.words("version_named"):
        return lexicon.weight("alias_sdk_phrase"), True
    return lexicon.weight("alias_platform"), False
