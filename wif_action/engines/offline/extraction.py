"""Rule-based Subtask 1: SDK, version, problem and links from a support message.

No network and no model: the registry knows every SDK name people type, the
version is the number the message presents as the customer's (see
`versions_in_text`), and the problem is the message minus greetings, the
SDK/version phrase, URLs and bare "was it fixed?" questions.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from indexer.github_refs import find_links, parse_link
from indexer.registry import Registry, capitalised_only, fold_case
from wif_action import lexicon
from wif_action.engines.offline.versions_in_text import (
    VERSION,
    SdkName,
    VersionMention,
    customer_version,
    named_as_customers,
)
from wif_action.lexicon.control_case import without_what_works
from wif_action.lexicon.names import alias_kind_weight, is_package_weight, looks_like_package
from wif_action.models import Request

MAX_MESSAGE_CHARS = 50_000  # a bound on work; the judgement's numbers (problem_chars, adjacent_bonus) are [weight]

_URL = re.compile(r"<?https?://[^\s<>`'\"]*[^\s<>`'\".,;:!?)\]}]>?")  # not the quote or full stop after it
_SPACE_RUN = re.compile(r"[^\S\n]+")
_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+|\s*\n\s*")
_EXTRAS = re.compile(r"\[([\w.,\s-]{1,40})\]")  # a Python requirement's extras: "openai[aiohttp]"
_ORPHANS = re.compile(r"(?<=\s)\(\s*\)|(?<=\s)['\"`(]+(?=\s)|(?<=\s)\)+(?=[\s.,;:])")


@dataclass(frozen=True)
class AliasMention:
    alias: str
    repo: str  # "": a package name several cached repositories share (the workflow asks which)
    start: int
    end: int
    weight: float
    names_sdk: bool


def extract(message: str, registry: Registry, links: list[str] | None = None) -> Request:
    """A `Request` for any text; never raises on odd input."""
    text = (message or "")[:MAX_MESSAGE_CHARS]
    found_links = github_links(text) + [link for link in links or [] if link not in text]
    scrubbed = _URL.sub(lambda m: " " * len(m.group(0)), text)
    mentions = alias_mentions(scrubbed, registry)
    aliases = _names(mentions)  # four numbers right after any of them are a version ("HLS 2.11.0.0")
    version = customer_version(scrubbed, _names(m for m in mentions if m.names_sdk), aliases=aliases)
    if version is None and mentions and not any(m.names_sdk for m in mentions):
        # "iOS 8.48.0": with no SDK named, a version right after a platform word is the SDK's
        version = customer_version(scrubbed, aliases)
    best = choose_alias(mentions, version, scrubbed)
    if not _repo_from_links(found_links, registry):  # a linked repository says which "sentry"
        best = _shared_name(scrubbed, registry) if best is None else _shared_at_version(scrubbed, registry,
                                                                                       version, best)
    if best is not None and not best.repo:  # "gizmo 1.2.0" of acme/gizmo-go and acme/gizmo-python: ask which
        return Request(sdk=scrubbed[best.start:best.end], repo=None, version=version.text if version else None,
                       problem=condense(scrubbed, [best], version), links=list(dict.fromkeys(found_links)),
                       raw_text=message or "")
    tentative = _tentative_version(scrubbed, mentions, best) if version is None else None
    held = tentative or (customer_version(scrubbed, aliases, tentative=True) if version is None else None)
    unknown = _unknown_sdk(scrubbed, registry) if best is None or not best.names_sdk else None
    if unknown is not None:  # "Roku SDK 2.1.0 on Android TV": a question about Roku, not a guess at Android
        return Request(sdk=unknown, repo=None, version=version.text if version else None,
                       problem=condense(scrubbed, [], version), links=list(dict.fromkeys(found_links)),
                       raw_text=message or "")
    repo = best.repo if best else _repo_from_links(found_links, registry)
    sdk = scrubbed[best.start:best.end] if best else (repo.split("/", 1)[1] if repo else None)
    problem = condense(scrubbed, [m for m in mentions if best and m.repo == best.repo], version or tentative)
    return Request(sdk=sdk, repo=repo, version=version.text if version else None, problem=problem,
                   links=list(dict.fromkeys(found_links)), raw_text=message or "",
                   tentative_version=held.text if held else None)


def _shared_name(text: str, registry: Registry) -> AliasMention | None:
    """With no other SDK named nor linked, the first name the registry declares ambiguous that the text uses as a
    package's name ("bumping to sentry 13.4.0", "the sentry crate"): the workflow narrows its repositories (the
    package manager the message names, the engine's choice) or asks which. Never the same word in prose
    ("Sentry's installer", "shows up in Sentry")."""
    for start, name in registry.find_ambiguous_names(text):
        end = start + len(name)
        if used_as_package(text, start, end):
            return AliasMention(name, "", start, end, lexicon.weight("alias_package"), True)
    return None


def _shared_at_version(text: str, registry: Registry, version: VersionMention | None,
                       best: AliasMention) -> AliasMention:
    """The shared name right before the customer's version ("sentry 0.47.0 in a tokio app") instead of `best`,
    a name elsewhere that is none of the shared name's repositories nor spelt as only a package is ("a tokio
    app": where the customer's code runs, not the SDK asked about); else `best`.

    Why: the version says whose it is (`adjacent_bonus`), and the shared name's repositories are narrowed
    afterwards (the package manager named, the engine's choice), while the other name has no release of a
    version written after another name. A name among the shared name's repositories ("Flutter app, Sentry
    9.1.0") or spelt as a package ("sentry 8.48.0 (sentry-cocoa)") says which SDK, and stays."""
    if version is None or not best.repo or _adjacent(best, version, text) or looks_like_package(best.alias):
        return best
    for start, name in registry.find_ambiguous_names(text):
        shared = AliasMention(name, "", start, start + len(name), lexicon.weight("alias_package"), True)
        if _adjacent(shared, version, text) and best.repo not in registry.choices(name):
            return shared
    return best


def _tentative_version(text: str, mentions: list[AliasMention], best: AliasMention | None) -> VersionMention | None:
    """"React Native 8.9.2 … Fixed in a newer @sentry/react-native?": with the SDK named by its own name, a
    version right after a name it shares with its framework or platform reads as the framework's; it may be the
    SDK's all the same. Returned apart, for the workflow to take only if the resolved repository released it."""
    if best is None or not best.names_sdk:
        return None
    shared = [m for m in mentions if m.repo == best.repo and not m.names_sdk]
    mention = customer_version(text, _names(shared))
    named = [m for m in shared if mention is not None and _adjacent(m, mention, text)]
    return mention if named and named_as_customers(text, named[0].start) else None


_SDK_PHRASE = re.compile(r"\b(?P<name>[A-Z][\w.+#-]{1,30}(?: [A-Z][\w.+#-]{1,30}){0,2}) SDK\b")


def _unknown_sdk(text: str, registry: Registry) -> str | None:
    """An "<Name> SDK" the message names that the registry does not know ("Roku SDK"); None if there is none."""
    for match in _SDK_PHRASE.finditer(text):
        phrase = match.group(0)
        words = match.group("name").split()
        names = [" ".join(words[i:]) for i in range(len(words))]  # "Sentry Roku" → also "Roku"
        if all(word.lower() in lexicon.words("stopwords", "not_a_name") for word in words):  # "Our SDK"
            continue
        if not any(registry.lookup(name) or registry.lookup(f"{name} SDK") or registry.choices(name)
                   for name in names):
            return phrase
    return None


def _names(mentions: Iterable[AliasMention]) -> list[SdkName]:
    return [SdkName(m.start, m.end, package=is_package_weight(m.weight)) for m in mentions]


def github_links(text: str) -> list[str]:
    """Issue and PR URLs, normalised (no fragment or query), first occurrence first."""
    return [link.url for link in find_links(text)]


def _repo_from_links(links: list[str], registry: Registry) -> str | None:
    for link in links:
        parsed = parse_link(link)
        if parsed and registry.lookup(parsed.repo):
            return registry.lookup(parsed.repo)
    return None


def alias_mentions(text: str, registry: Registry) -> list[AliasMention]:
    """Every occurrence of every registry alias in the text, with its kind, and every contextual name the text
    uses as a package's name (`package_mentions`) outside a longer name ("widget" of "Widget SDK")."""
    lower = fold_case(text)
    mentions: list[AliasMention] = []
    for alias, repo in registry.find_in_text(text):
        if not repo or alias in registry.contextual:  # "requests" of psf/requests: only as a package's name
            continue
        weight, names_sdk = alias_kind_weight(alias, repo)
        pattern = re.compile(rf"(?<![\w@/.-]){re.escape(alias)}(?![\w-]|\.\w)")
        for match in pattern.finditer(lower):
            if alias in capitalised_only() and not text[match.start()].isupper():
                continue
            required = lexicon.pattern("requirement_after").match(text, match.end())  # "openai[aiohttp]==2.50.0"
            kind = (lexicon.weight("alias_package"), True) if required else (weight, names_sdk)
            mentions.append(AliasMention(alias, repo, match.start(), match.end(), *kind))
    for package in package_mentions(text, registry):  # the longer name wins, as in `Registry.find_in_text`
        overlapping = [m for m in mentions if m.start < package.end and package.start < m.end]
        if all(package.start <= m.start and m.end <= package.end and m.end - m.start < package.end - package.start
               for m in overlapping):  # "Anthropic Python SDK" is anthropic's, not the "Python SDK" alias's
            mentions = [m for m in mentions if m not in overlapping] + [package]
    return sorted(mentions, key=lambda m: m.start)


def package_mentions(text: str, registry: Registry) -> list[AliasMention]:
    """A cached repository's distinctive or one-word name where the text uses it as a package's name ("anthropic
    0.40.0", "httpx==0.27.0", "pip install anthropic", "the anthropic SDK"), as a package name only one SDK has;
    never the same word in prose ("the requests fail"). Shared by several cached repositories, its `repo` is ""."""
    found = []
    for start, name in registry.find_package_names(text):
        end = start + len(name)
        if used_as_package(text, start, end):
            repos = registry.package_choices(name)
            named = lexicon.pattern("package_named_after").match(text, end)  # "anthropic Python SDK": all of it
            found.append(AliasMention(name, repos[0] if len(repos) == 1 else "", start, named.end() if named else end,
                                      lexicon.weight("alias_package"), True))
    return found


def used_as_package(text: str, start: int, end: int) -> bool:
    """The name at text[start:end] is written as a package's: right before a version (`adjacent_gap`), before
    what an SDK is called, after an install command or an import, or as the label a line starts with."""
    if lexicon.pattern("package_named_after").match(text, end):
        return True
    reach = max(0, start - int(lexicon.weight("version_gap_chars")))
    if lexicon.pattern("package_named_before").search(text, reach, start):
        return True
    if lexicon.pattern("package_label_after").match(text, end) and \
            lexicon.pattern("package_label_before").search(text, reach, start):
        return True
    version = VERSION.search(text, end, end + int(lexicon.weight("version_gap_chars")))
    return bool(version and lexicon.pattern("adjacent_gap").fullmatch(text, end, version.start())
                and not lexicon.pattern("unit").match(text, version.end()))


def choose_alias(mentions: list[AliasMention], version: VersionMention | None, text: str) -> AliasMention | None:
    """The mention naming the customer's SDK: summed evidence per repository, adjacency to the version first."""
    if not mentions:
        return None
    scores: dict[str, float] = {}
    for mention in _distinct(mentions):
        scores[_named(mention)] = scores.get(_named(mention), 0.0) + mention.weight
    for mention in mentions:
        if version and _adjacent(mention, version, text):
            scores[_named(mention)] += lexicon.weight("adjacent_bonus")
            break
    first = {_named(m): m.start for m in reversed(mentions)}
    repo = max(scores, key=lambda r: (scores[r], -first[r]))
    candidates = [m for m in mentions if _named(m) == repo]
    return max(candidates, key=lambda m: (m.weight, _adjacent_any(m, version, text), len(m.alias), -m.start))


def _named(mention: AliasMention) -> str:
    """What a mention names: its repository, or (shared by several) the name itself."""
    return mention.repo or mention.alias


def _distinct(mentions: list[AliasMention]) -> list[AliasMention]:
    """One mention per alias, leaving out those inside a longer one ("react" in "react native")."""
    seen: dict[str, AliasMention] = {}
    reach = -1
    for mention in sorted(mentions, key=lambda m: (m.start, -m.end)):
        if mention.end > reach:
            seen.setdefault(mention.alias, mention)
        reach = max(reach, mention.end)
    return list(seen.values())


def _adjacent(mention: AliasMention, version: VersionMention, text: str) -> bool:
    gap = lexicon.pattern("adjacent_gap")
    return mention.end <= version.start and bool(gap.fullmatch(text, mention.end, version.start))


def _adjacent_any(mention: AliasMention, version: VersionMention | None, text: str) -> bool:
    return version is not None and _adjacent(mention, version, text)




def condense(text: str, sdk_mentions: list[AliasMention], version: VersionMention | None) -> str:
    """The symptom part of the message, bounded to about `problem_chars` (lexicon.toml [weight])."""
    text = _remove_sdk_phrase(text, sdk_mentions, version)
    text = lexicon.pattern("speaker_label").sub(lambda m: " " * len(m.group(0)), text)
    text = _ORPHANS.sub(" ", lexicon.pattern("greeting").sub("", text, count=1))
    text = _SPACE_RUN.sub(" ", text)  # long blank runs (blanked URLs) made the sentence split quadratic
    kept = []
    for sentence in _SENTENCE_BREAK.split(text):
        cleaned = re.sub(r"\s+([.,;:!?])(?=\s|$)", r"\1", " ".join(without_what_works(sentence).split()))
        cleaned = cleaned.lstrip(" -–—:;,.+)'\"")
        cleaned = lexicon.pattern("reported_speech").sub("", lexicon.pattern("aside").sub("", cleaned))
        cleaned = lexicon.pattern("knock_on").sub(_without_knock_on, cleaned)
        cleaned = cleaned.lstrip(" -–—:;,.+)'\"").rstrip(" -–—:;,(")
        if re.search(r"[A-Za-z]", cleaned) and not _is_bare_question(cleaned) and not _is_status(cleaned) \
                and not lexicon.pattern("courtesy").fullmatch(cleaned):
            kept.append(cleaned)
    return _bounded(kept)






def _without_knock_on(match: re.Match[str]) -> str:
    """Nothing for a knock-on clause (`pattern.knock_on`'s group `consequence` set), the clause itself otherwise."""
    return "" if match.group("consequence") is not None else match.group(0)


def _is_status(sentence: str) -> bool:
    """A sentence about the support case, not the symptom ("I found a GitHub issue …", "The fix for this is in
    8.43.0 …", "no improvement"): it stays in the request text, at its lower weight, but not in the problem."""
    return bool(lexicon.pattern("case_status").search(sentence))


def _remove_sdk_phrase(text: str, mentions: list[AliasMention], version: VersionMention | None) -> str:
    """Blank out "<alias> <version>" and a lead-in like "Customer on the", keeping offsets."""
    if version is None:
        return text
    start = version.start
    for mention in mentions:
        if mention.end <= version.start and lexicon.pattern("adjacent_gap").fullmatch(text, mention.end, version.start):
            start = min(start, mention.start)
    alias_words = {word for m in mentions for word in re.findall(r"[a-z][\w'#.+-]*", m.alias)}
    start = _lead_in_start(text, start, alias_words)
    after = lexicon.pattern("after_version").match(text, version.end)
    end = after.end() if after else version.end
    for mention in mentions:  # "8.45.0 (sentry-cocoa)": the SDK named in parentheses after its version
        named_after = re.fullmatch(r"\s*\(\s*", text[version.end:mention.start])
        closing = re.match(r"\s*\)", text[mention.end:])
        if named_after and closing:
            end = max(end, mention.end + closing.end())
    blanked = text[:start] + " " * (end - start) + text[end:]
    for extras in _EXTRAS.finditer(text, start, end):  # "sentry-sdk[flask]==2.3.1": the integrations stay
        blanked = blanked[:extras.start(1)] + extras.group(1) + blanked[extras.end(1):]
    return blanked


def _lead_in_start(text: str, start: int, alias_words: set[str]) -> int:
    """Where the sentence holding the SDK phrase starts, if everything before the phrase is lead-in."""
    sentence_start = max(text.rfind("\n", 0, start), text.rfind(". ", 0, start)) + 1
    words = re.findall(r"[A-Za-z][\w'#.+-]*", text[sentence_start:start].lower())
    lead_in = lexicon.words("stopwords", "question_noise", "version_named", "lead_in")
    if len(words) <= 6 and all(w.strip(".") in lead_in or w in alias_words for w in words):
        return sentence_start
    return start


def _is_bare_question(sentence: str) -> bool:
    """A question with no symptom words ("Fixed?", "Any known fix?", "Is this a known bug?")."""
    if not sentence.rstrip().endswith("?"):
        return False
    words = re.findall(r"[A-Za-z][\w'-]*", sentence.lower())
    return sum(1 for word in words if word not in lexicon.words("stopwords", "question_noise")) < 2


def _bounded(sentences: list[str]) -> str:
    out, most = "", int(lexicon.weight("problem_chars"))
    for sentence in sentences:
        candidate = f"{out} {sentence}".strip()
        if len(candidate) > most:
            return out or candidate[:most].rsplit(" ", 1)[0]
        out = candidate
    return out
