"""Which version number in a support message is the customer's SDK version.

Messages mention several numbers: the SDK version, the version something was
"fixed in", platform versions ("Kotlin 2.1.0", "iOS 17.2"), dates and IPs. Each
candidate is scored from the words right before it; the best non-negative one wins,
earlier mentions breaking ties.

Four numbers ("2.11.0.0": Haskell's PVP, .NET assemblies) are also how an IPv4 address is written, so the text
must say it is a version: right after the SDK's name or a tight cue (`pattern.quad_cue`: "version 2.11.0.0").
Otherwise ("we're on 2.11.0.0", "connect to 10.0.0.12 failed") it is only tentative: the customer's version if
the resolved repository released exactly that number (`subtasks.extract_request.confirm_tentative_version`).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass

from indexer.versions import is_quad
from wif_action import lexicon

VERSION = re.compile(
    r"(?<![\w./#$-])(?<![^\w]@)(?<!^@)(v?\d{1,5}(?:\.(?:\d{1,6}|x|\*)){1,3}"
    r"(?:-?(?:alpha|beta|rc|preview|pre|dev|a|b)[.-]?\d{0,4})?|[vV]\d{1,4})(?![\w-]|\.\w)",
)
_WORD_BEFORE = re.compile(r"([\w.#+@/-]+)\s*['\"`(]?$")


# version_gap_chars, version_cue_chars: lexicon.toml [weight]. A bound on work stays here:
MAX_MENTIONS = 200  # a support message names a handful of versions; bounds work on pathological text


@dataclass(frozen=True)
class SdkName:
    """Where the message names an SDK; `package`: by a name only one SDK has ("@sentry/react-native")."""

    start: int
    end: int
    package: bool = False


@dataclass(frozen=True)
class VersionMention:
    text: str
    start: int
    end: int
    score: float
    tentative: bool = False  # four numbers the text does not call a version: an address, unless a release


def quad_named(text: str, start: int, names: list[SdkName]) -> bool:
    """Whether the text says four numbers at `start` are a version: right after an SDK's name ("HLS 2.11.0.0",
    "haskell-language-server@2.11.0.0", not "… at 10.0.0.12": `pattern.address_gap`) or a tight cue ("version
    2.11.0.0"); "on", "at" or "to" alone do not, as addresses follow them too ("listening on 0.0.0.0")."""
    ends = sorted({name.end for name in names})
    if any(lexicon.pattern("adjacent_gap").fullmatch(text, end, start)
           and not lexicon.pattern("address_gap").search(text, end, start) for end in _ends_before(ends, start)):
        return True
    return bool(lexicon.pattern("quad_cue").search(text, max(0, start - int(lexicon.weight("version_gap_chars"))),
                                                   start))


def _plausible(text: str, after: str) -> bool:
    """False for dates, addresses with a port or a prefix length ("192.168.1.1:8080", "10.0.0.0/8") and
    measurements."""
    if is_quad(text) and lexicon.pattern("address_after").match(after):
        return False
    parts = text.lstrip("vV").split(".")
    numeric = [p for p in parts if p.isdigit()]
    if len(numeric) == 3 and (1900 <= int(numeric[0]) <= 2100 or 1900 <= int(numeric[-1]) <= 2100):
        return False
    return not lexicon.pattern("unit").match(after)


def score_mention(before: str, after_sdk_name: bool, after_package: bool = False,
                  upgrade_object: str | None = None) -> float:
    """Evidence, from the text just before a version, that it is the customer's SDK version.

    `upgrade_object`: None without an "upgraded X to" right before; else what X is: "generic" (nothing or the
    SDK itself), "package", "sdk" (a name that could also be a platform or framework: "React Native") or
    "other" ("okhttp", "Xcode"): an upgrade of something else is that thing's version, and a package name's
    own version beats an upgrade of an ambiguous name."""
    weight = lexicon.weight
    if lexicon.pattern("fixed_in").search(before):
        return weight("mention_fixed_in")
    if lexicon.pattern("upgrade_proposed").search(before):
        return weight("mention_proposed")
    if upgrade_object is not None:
        return weight(f"mention_upgrade_{upgrade_object}")
    if lexicon.pattern("upgraded_from").search(before):
        return weight("mention_upgraded_from")
    if lexicon.pattern("later_version").search(before) or lexicon.pattern("worked_in").search(before):
        return weight("mention_later")
    if after_package:
        return weight("mention_after_package")
    if lexicon.pattern("sentry_before").search(before) or lexicon.pattern("sdk_word_before").search(before):
        return weight("mention_sdk_cue")
    if after_sdk_name:
        return weight("mention_after_sdk_name")
    word = _WORD_BEFORE.search(before)
    if word and word.group(1).lower() in lexicon.words("version_named"):
        return weight("mention_other_named")
    return weight("mention_version_cue") if lexicon.pattern("version_cue").search(before) else 0.0


def _upgrade_object(text: str, before_start: int, before: str, names: list[SdkName]) -> str | None:
    """What the "upgraded … to" right before a version names (see `score_mention`); None without one."""
    match = lexicon.pattern("upgraded_to").search(before)
    if match is None:
        return None
    start, end = before_start + match.start("object"), before_start + match.end("object")
    inside = [name for name in names if start <= name.start and name.end <= end]
    if any(name.package for name in inside):
        return "package"
    if inside:
        return "sdk"
    words = re.findall(r"[A-Za-z][\w+#.-]*", VERSION.sub(" ", text[start:end]).lower())
    return "other" if any(word not in lexicon.words("generic_upgrade_object") for word in words) else "generic"


def find_versions(text: str, names: list[SdkName], aliases: list[SdkName] | None = None) -> list[VersionMention]:
    """Plausible version mentions with scores, in text order.

    `names` are where the message names an SDK ("sentry_flutter", "Cocoa", "pydantic"); a version right after
    one is very likely the customer's. `aliases` (default `names`): every name of a known SDK, platform-like ones
    too ("HLS"), after which four numbers are a version, not an address.
    """
    found: list[VersionMention] = []
    ends = sorted({name.end for name in names})
    package_ends = {name.end for name in names if name.package}
    for match in VERSION.finditer(text):
        if len(found) >= MAX_MENTIONS:
            break
        value = match.group(1)
        if not _plausible(value, text[match.end():match.end() + 12]):
            continue
        line_start, before = _before(text, match.start())
        adjacent = [end for end in _ends_before(ends, match.start())
                    if lexicon.pattern("adjacent_gap").fullmatch(text, end, match.start())]
        score = score_mention(before, bool(adjacent), any(end in package_ends for end in adjacent),
                              _upgrade_object(text, line_start, before, names))
        tentative = is_quad(value) and not quad_named(text, match.start(), names if aliases is None else aliases)
        found.append(VersionMention(value, match.start(), match.end(), score, tentative))
    return found


def _before(text: str, start: int) -> tuple[int, str]:
    """The words before `start` that say whose a version is: back to the sentence start, `version_cue_chars` at most."""
    window = max(0, start - int(lexicon.weight("version_cue_chars")))
    line_start = max(text.rfind("\n", window, start), text.rfind(". ", window, start), window - 1) + 1
    return line_start, text[line_start:start]


def named_as_customers(text: str, name_start: int) -> bool:
    """Whether a version written right after the name at `name_start` may be the customer's, judged by the words
    before the name ("fixed in React Native 8.10.0" says no)."""
    return score_mention(_before(text, name_start)[1], after_sdk_name=True) >= 0


def _ends_before(ends: list[int], start: int) -> list[int]:
    """Name ends close enough before `start` for the gap between them to be a connector."""
    gap = int(lexicon.weight("version_gap_chars"))
    return ends[bisect_left(ends, start - gap):bisect_right(ends, start)]


def customer_version(text: str, names: list[SdkName], tentative: bool = False,
                     aliases: list[SdkName] | None = None) -> VersionMention | None:
    """The best-scoring mention that is not evidently something else; earliest on ties. `tentative`: among the
    four numbers the text does not call a version instead (see the module's docstring)."""
    best = None
    for mention in find_versions(text, names, aliases):
        if mention.tentative == tentative and mention.score >= 0 and (best is None or mention.score > best.score):
            best = mention
    return best
