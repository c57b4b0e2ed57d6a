"""What kind of name a registry alias is: a package name only one SDK has, an "X SDK" phrase, or a platform word.

Why here: both reading a support message (which SDK is meant) and analysing the question (an SDK's own name
says which repository, not what is wrong) weigh names the same way.
"""

from __future__ import annotations

import re

from wif_action import lexicon

PACKAGE_WEIGHT = 3.0  # a name only one SDK has ("@sentry/react-native", "sentry_flutter")


def alias_kind_weight(alias: str, repo: str) -> tuple[float, bool]:
    """(weight, names the SDK itself): package names beat "X SDK" phrases beat platform words.

    Why: "sentry_flutter" or "@sentry/react-native" can only mean one SDK, while
    "Android" or "iOS" also describe where a React Native or Flutter app runs.
    """
    name = repo.split("/", 1)[-1].lower()
    if re.search(r"[@/_:]|\w\.\w|-", alias) or "sentry" in alias or alias == name:
        return PACKAGE_WEIGHT, True
    if alias.endswith(" sdk"):
        return 2.0, True
    if alias in name and alias not in lexicon.words("version_named"):
        return 2.0, True
    return 1.0, False
