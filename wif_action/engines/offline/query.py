"""The weighted query terms of one question (problem + raw request), with SDK names damped."""

from __future__ import annotations

from indexer.registry import Registry
from wif_action.engines.offline.extraction import PACKAGE_WEIGHT, alias_kind_weight
from wif_action.lexicon.terms import MAX_ANALYSED_CHARS, Term, analyse, query_terms

SDK_NAME_WEIGHT = 0.3


def build_query(problem: str, request_text: str, registry: Registry) -> dict[str, Term]:
    """Query terms of the problem and request; SDK names in the request count little.

    Why: "iOS SDK" or "sentry-cocoa" say which repository, not what is wrong, and
    would match every dependency bump of that SDK. A package's own part
    ("serverless" of "@sentry/aws-serverless", "okhttp" of "sentry-okhttp") names
    the area, so it keeps its weight.
    """
    query = query_terms(problem, request_text)
    for key in _sdk_name_keys(request_text, registry) & query.keys():
        term = query[key]
        query[key] = Term(term.key, term.surface, min(term.weight, SDK_NAME_WEIGHT), term.kind)
    return query


def _sdk_name_keys(request_text: str, registry: Registry) -> set[str]:
    keys: set[str] = set()
    for alias, repo in registry.find_in_text(request_text[:MAX_ANALYSED_CHARS]):
        own = {term.key for term in analyse(repo.replace("/", " ").replace("-", " "))}
        package = alias_kind_weight(alias, repo)[0] >= PACKAGE_WEIGHT
        keys |= {term.key for term in analyse(alias) if not package or term.key in own}
    return keys
