"""The customer's question, analysed once: what subtasks, objections and both engines judge candidates against.

Why one object: the problem text used to be re-joined and re-analysed at every call site (query terms per
engine call, platforms and functionality in the scan, again in each objection). `analyse_question` reads it
once per run; every judge method takes the `Question`, never `(problem, request_text)` strings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from functools import cache

from indexer.github_refs import find_links
from indexer.registry import Registry
from wif_action import lexicon
from wif_action.direction import Complaint, complaints
from wif_action.lexicon.control_case import without_the_ask
from wif_action.lexicon.names import alias_kind_weight, is_package_weight
from wif_action.lexicon.question_terms import problem_terms, query_terms
from wif_action.lexicon.terms import MAX_ANALYSED_CHARS, Term, alternatives, analyse, qualified_members, quoted_spans
from wif_action.models import Request
from wif_action.platforms import api_levels, as_api_levels, named_platforms, repository_platforms
from wif_action.problem_kind import wants_functionality


@dataclass(frozen=True)
class Customer:
    """Who asks: the SDK as they named it, its repository, the version they are on and where it runs.

    Why: a judge that reads only the problem cannot tell a fix for another platform, another SDK or a release
    the customer already has from the fix; the LLM engine shows this to every filter, score and verify call.
    `platforms` are the request's own, else the SDK's (`platform_source` says which)."""

    sdk: str | None = None
    repo: str | None = None
    version: str | None = None
    platforms: tuple[str, ...] = ()
    platform_source: str = "request"  # "request" (named in it) or "sdk" (the SDK's platforms, none was named)
    bundles: tuple[str, ...] = ()  # repositories of the SDKs it bundles (a fix there reaches the customer too)


@dataclass(frozen=True, eq=False)
class Question:
    """What the judge reads from a request. `problem` is the condensed symptom, `request_text` all the customer
    wrote; the rest is derived from them by `analyse_question`."""

    problem: str
    request_text: str
    terms: dict[str, Term] = field(default_factory=dict)  # weighted query terms, SDK names damped
    problem_keys: frozenset[str] = frozenset()  # term keys of the condensed problem alone
    identifiers: frozenset[str] = frozenset()  # code names anywhere in the request ("before_send", "__init__")
    quoted: frozenset[str] = frozenset()  # … those quoted verbatim (`http_ssl_verify_peer`)
    quoted_code: frozenset[str] = frozenset()  # every term of a quoted span naming code (`php artisan sentry:test`)
    platforms: frozenset[str] = frozenset()  # where it happens ("ios"), not where it works
    api_levels: frozenset[int] = frozenset()  # the Android API levels it names ("API 23 and below": 1…23)
    wants_functionality: bool = False  # asks for missing functionality, not about broken behaviour
    complaints: tuple[Complaint, ...] = ()  # per sentence: what it names is there / missing (direction)
    alternatives: tuple[frozenset[str], ...] = ()  # "slow/frozen frames": one idea
    links: tuple[str, ...] = ()  # GitHub issue/PR links of the request text
    customer: Customer = Customer()  # SDK, repository, version, platform (set by `question_of`)
    own_names: frozenset[str] = frozenset()  # term keys naming only the asked SDK itself: no note matches them
    deployment_keys: frozenset[str] = frozenset()  # term keys of where their service runs ("self-hosted"): not what
    failure_classes: dict[str, str] = field(default_factory=dict)  # the problem's exception classes, key → as written
    from_message: bool = False  # the problem was condensed out of a free-text message (`Request.from_message`)
    sides: dict[str, frozenset[str]] = field(default_factory=dict)  # the sides of an exchange it names, each with
    # what it qualifies ("response body" → {"response": {"bodi"}}; lexicon `[[counterpart]]`, `lexicon.sides_named`)

    @property
    def text(self) -> str:
        """Problem and request, as the engine-independent checks read them."""
        return f"{self.problem}\n{self.request_text}"


def analyse_question(problem: str, request_text: str = "", registry: Registry | None = None,
                     from_message: bool = False, repo: str | None = None) -> Question:
    """Analyse a question once. `registry`: whose SDK names in the request count little, those of `repo` (the
    asked repository) and what it bundles when it is known (see `sdk_name_keys`); `from_message`: the problem was
    condensed out of a free-text message, weighed by lexicon `[message_weight]`."""
    problem, request_text = problem or "", request_text or ""
    both = f"{problem}\n{request_text}"
    # the ask's words are no symptom; "Android 6.0" also reads as "API level 23"
    said, asked = (as_api_levels(without_the_ask(text)) for text in (problem, request_text))
    terms = query_terms(said, asked, lexicon.weight("setup_factor", from_message))
    names = sdk_name_keys(request_text, registry, repo)
    _members_of_the_sdk(terms, f"{said}\n{asked}", names)
    for key in (names | manager_keys(request_text)) & terms.keys():
        term = terms[key]
        terms[key] = Term(term.key, term.surface, min(term.weight, lexicon.weight("sdk_name")), term.kind)
    return Question(
        problem=problem, request_text=request_text, terms=terms,
        problem_keys=frozenset(term.key for term in problem_terms(said)),
        identifiers=frozenset(term.key for term in analyse(both) if term.identifier),
        quoted=frozenset(term.key for span in quoted_spans(both) for term in analyse(span) if term.identifier),
        quoted_code=_quoted_code(both),
        platforms=frozenset(named_platforms(both)),
        api_levels=api_levels(both),
        wants_functionality=wants_functionality(both),
        complaints=complaints(both),
        alternatives=alternatives(both) + _devices(both),
        deployment_keys=deployment_keys(both),
        failure_classes=failure_classes(problem),
        sides=lexicon.sides_named(both[:MAX_ANALYSED_CHARS]),
        links=tuple(link.url for link in find_links(request_text)))


def _members_of_the_sdk(terms: dict[str, Term], text: str, names: set[str]) -> None:
    """Each member the text names through the asked SDK's own name ("`zap.Time(…)`", "`fmt::format`") weighs as
    the qualified name it is part of: notes name an SDK's API without the SDK ("Fix handling of `Time` values"),
    so the member is the code name, where a word split out of another code name is only a part (`weight.part`)."""
    if lexicon.weight("sdk_member") <= 0:
        return
    for member, owners in qualified_members(text):
        term, whole = terms.get(member), [t for t in terms.values() if t.identifier and t.key.endswith(member)]
        if term is None or term.identifier or not owners or not owners <= names or not whole:
            continue
        terms[member] = Term(term.key, term.surface, max(term.weight, max(t.weight for t in whole)), "identifier")


def failure_classes(text: str) -> dict[str, str]:
    """The class names of `text` that are a class of failure ("NullPointerException"; not a function named like one,
    `exceptions_from_error`), key → as written."""
    failure = lexicon.pattern("failure_class")
    return {term.key: term.surface for term in analyse(text)
            if term.identifier and term.surface[:1].isupper() and failure.match(term.surface)}


def _quoted_code(text: str) -> frozenset[str]:
    """The terms of the quoted spans that name code (a span with an identifier: a command, an option, a call)
    and no failure: not of a quoted error ("`TypeError: object of type 'HttpUrl' has no len()`", lexicon
    `failure_class`, or a symptom word), which says what went wrong."""
    failure, symptoms = lexicon.pattern("failure_class"), lexicon.symptom_terms()
    spans = [analyse(span) for span in quoted_spans(text)]
    return frozenset(term.key for terms in spans
                     if any(t.identifier for t in terms)
                     and not any(t.key in symptoms or (t.identifier and failure.match(t.surface)) for t in terms)
                     for term in terms)


def deployment_keys(text: str) -> frozenset[str]:
    """The term keys of where the customer's service runs, as the text names it (lexicon `deployment`: "our
    self-hosted server" → self, host, self host): with the platforms, where the problem happens, which a headline
    naming nothing else does not fix (`scoring._only_where`). Not the word after it: that is what runs there or
    what fails ("on-prem uploads fail": "uploads" is the complaint, not a where)."""
    found = _word_pattern(lexicon.words("deployment")).findall(text[:MAX_ANALYSED_CHARS])
    return frozenset(term.key for match in found for term in analyse(match))


@cache
def _word_pattern(words: frozenset[str]) -> re.Pattern[str]:
    """Any of `words`, as a whole word (built once per table)."""
    return re.compile(r"(?<![\w-])" + lexicon.alternation(words) + r"(?![\w-])", re.IGNORECASE)


def _devices(text: str) -> tuple[frozenset[str], ...]:
    """The device makers and lines the text names (lexicon `devices`), as one group of alternatives when it names
    several: "Samsung and Xiaomi users but never a Pixel" asks about which device, one idea, and a note naming
    two of them names it once."""
    names = lexicon.words("devices")
    found = frozenset(term.key for term in analyse(text[:MAX_ANALYSED_CHARS])
                      if term.kind == "word" and term.surface in names)
    return (found,) if len(found) > 1 else ()


def question_of(request: Request, registry: Registry | None = None, repo: str | None = None) -> Question:
    """The analysed question of an extracted request; `repo` is the resolved repository (else the request's)."""
    repo = repo or request.repo
    question = analyse_question(request.problem, request.raw_text, registry, request.from_message, repo)
    customer = customer_of(request, question.platforms, registry, repo)
    return replace(question, customer=customer, from_message=request.from_message,
                   own_names=frozenset(own_name_keys(question.text, customer.repo, registry)))


def own_name_keys(text: str, repo: str | None, registry: Registry | None) -> set[str]:
    """Term keys that the text uses only inside the asked SDK's own package names (`Question.own_names`: they stay
    in what a note must cover, and no note names them): a registry name of `repo` of
    the package kind ("Sentry.Xamarin", "sentry-laravel", "@sentry/react-native", `names.alias_kind_weight`)
    whose words are all words of the repository's name.

    Why: every note of that SDK is about it, so its package name in the question ("Sentry.Xamarin's internal
    breadcrumb code") is no evidence that a note is about the problem ("Fix Null reference on
    SentryXamarinFormsIntegration" matched "xamarin"). A word the text also uses on its own ("With Laravel
    Octane") stays, and so does a package name adding a word of its own ("Sentry.Serilog", "@sentry/nextjs"): it
    names an integration, which is evidence."""
    if registry is None or not repo:
        return set()
    text = text[:MAX_ANALYSED_CHARS]
    own_words = {term.key for term in analyse(repo.split("/", 1)[-1]) if term.kind in ("word", "part")}
    names = [alias for alias, target in registry.find_in_text(text) if target == repo
             and is_package_weight(alias_kind_weight(alias, repo)[0])
             and {term.key for term in analyse(alias) if term.kind in ("word", "part")} <= own_words]
    if not names:
        return set()
    masked = re.sub("|".join(rf"(?<![\w.@/-]){re.escape(name)}(?![\w-]|\.\w)" for name in names), " ", text,
                    flags=re.IGNORECASE)
    return {term.key for name in names for term in analyse(name)} - {term.key for term in analyse(masked)}


def customer_of(request: Request, named: frozenset[str], registry: Registry | None, repo: str | None) -> Customer:
    """The customer's context: the platforms the request names, else those of the SDK's repository."""
    platforms, source = sorted(named), "request"
    if not platforms and registry is not None and repo:
        platforms, source = sorted(repository_platforms(registry, repo)), "sdk"
    bundles = sorted(set(registry.bundles(repo).values())) if registry is not None and repo else []
    return Customer(sdk=request.sdk, repo=repo, version=request.version, platforms=tuple(platforms),
                    platform_source=source, bundles=tuple(bundles))


def manager_keys(request_text: str) -> set[str]:
    """Term keys of the package managers the request names (lexicon `[[ecosystem]]`: "via CocoaPods", "pip-audit",
    "the sentry-ruby gem"): how the SDK is installed, not what is wrong."""
    text = request_text[:MAX_ANALYSED_CHARS]
    return {term.key for pattern in lexicon.ecosystem_patterns().values() for match in pattern.finditer(text)
            for term in analyse(match.group())}


def sdk_name_keys(request_text: str, registry: Registry | None, repo: str | None = None) -> set[str]:
    """Term keys of the SDK names the request uses. Why they count little: "iOS SDK" or "sentry-cocoa" say which
    repository, not what is wrong, and would match every dependency bump of that SDK. A package's own part
    ("serverless" of "@sentry/aws-serverless", "okhttp" of "sentry-okhttp") names the area, so it keeps its
    weight. A cached repository's package name ("anthropic" of anthropic-sdk-python, `Registry.find_package_names`)
    counts little like an alias.

    With `repo` known, only the names of `repo` and of the SDKs it bundles count little, and platform words
    (`alias_kind_weight`: "TypeScript", "Android" say where, whichever SDK the registry files them under): another
    repository's own name is a word of the problem there ("# fmt: skip" asked of psf/black is no name of
    fmtlib/fmt), and registries grow names that are everyday words (fmt, rich, click, requests)."""
    keys: set[str] = set()
    if registry is None:
        return keys
    own = None if not repo else {repo, *registry.bundles(repo).values()}
    text = request_text[:MAX_ANALYSED_CHARS]
    for alias, target in registry.find_in_text(text):
        weight, names_sdk = alias_kind_weight(alias, target)
        if own is not None and target not in own and names_sdk:
            continue
        words = {term.key for term in analyse(target.replace("/", " ").replace("-", " "))}
        package = is_package_weight(weight)
        keys |= {term.key for term in analyse(alias) if not package or term.key in words}
    for _start, name in registry.find_package_names(text):  # "anthropic" of anthropic-sdk-python, as an alias
        if own is None or own & set(registry.package_choices(name)):
            keys |= {term.key for term in analyse(name)}
    return keys
