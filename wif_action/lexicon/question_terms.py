"""A question's weighted query terms: the problem fully, the rest of the request less, acronyms and quotes gaining.

Why apart from `terms`: only the question side weighs terms; a release note is counted as written (`term_counts`).
"""

from __future__ import annotations

import math
import re
from collections import Counter

from wif_action import lexicon
from wif_action.lexicon.control_case import asks, states_failure, without_control_statements, without_what_works
from wif_action.lexicon.terms import MAX_ANALYSED_CHARS, Term, analyse, quoted_spans, word_terms

MAX_QUERY_TERMS = 160  # each query term costs one FTS5 count per repository

# Query-side weights of the kinds of terms: lexicon.toml [weight] (identifier, part, bigram, synonym, weak_factor,
# quoted_gain, repeat_gain, request_factor), read where used; the bound on work above stays here.

# An absolute path of two or more segments ("/api/v1/cart", "/hubs/*"): the customer's own routes and files.
_CODE_SEGMENT = re.compile(r"[a-z][A-Z]|_|\.\w{1,4}$")  # camelCase, snake_case, a file's extension
_PATH = re.compile(r"(?<![\w.~/])/[\w.*:{}-]+(?:/[\w.*:{}-]+)+/?")


def query_terms(problem: str, request_text: str = "", setup_factor: float = 1.0) -> dict[str, Term]:
    """Weighted, de-duplicated query terms: the problem counts fully, the rest of the request less.

    Why: the problem is the condensed symptom; the raw request adds context words
    (framework names, what the customer tried) that are weaker evidence. `setup_factor`: what the problem's setup
    statements (`setup_statements`) count.
    """
    weights: dict[str, Term] = {}
    problem, request_text = (_without_routes(_without_object_state(text)) for text in (problem, request_text))
    stated, setup = setup_statements(problem) if setup_factor != 1.0 else (problem, "")
    _add(weights, problem_terms(stated), 1.0)
    _add(weights, problem_terms(setup), setup_factor)
    complaint = without_what_works(request_text, keep_code=True)
    _add(weights, analyse(complaint), lexicon.weight("request_factor"))
    bigram = lexicon.weight("bigram")  # an acronym stands for a phrase of the question: it weighs as one
    _add(weights, acronyms(problem), bigram)
    _add(weights, acronyms(complaint), bigram * lexicon.weight("request_factor"))
    whole = f"{problem}\n{request_text}"  # the readings below look at the question as one text
    quoted = {t.key for span in quoted_spans(whole) for t in analyse(span)}
    for key in quoted & weights.keys():
        term = weights[key]
        weights[key] = Term(term.key, term.surface, term.weight * lexicon.weight("quoted_gain"), term.kind)
    _add(weights, negated_bases(weights), lexicon.weight("negated_base"))
    _add(weights, status_words(weights, whole), lexicon.weight("status_word"))
    _add(weights, negated_participles(problem, weights), lexicon.weight("negated_base"))
    _add(weights, regression_words(weights, whole), lexicon.weight("regression_word"))
    strongest = sorted(weights.values(), key=lambda t: -t.weight)[:MAX_QUERY_TERMS]
    return {term.key: term for term in strongest}


# A name of three or more capitalised words, hyphen- or space-joined ("Content-Security-Policy", "X-Forwarded-For",
# "Application Not Responding"): what notes often write as its initials.
_COMPOUND_NAME = re.compile(r"\b[A-Z][a-z]*(?:-[A-Z][a-z]*){2,}\b|\b[A-Z][a-z]+(?: [A-Z][a-z]+){2,}\b")


def acronyms(text: str) -> list[Term]:
    """The initials of each name of three or more capitalised words in `text`, as the terms of that word ("csp" of
    "Content-Security-Policy"). Why: a question spells the name out where a note writes its acronym ("Fix setting
    CSP header options"); two words are left out, their initials are too often another word's. Question side only:
    a note's own acronym is a word of it already."""
    found: list[Term] = []
    for match in _COMPOUND_NAME.finditer(text or ""):
        found += word_terms("".join(word[0] for word in re.split(r"[- ]", match.group())).lower())
    return found


_SENTENCE_BREAK = re.compile(r"((?<=[.!?])\s+|\s*\n\s*)")  # kept by re.split: offsets stay


def setup_statements(problem: str) -> tuple[str, str]:
    """The problem split into what it states and its setup statements, offsets kept by blanks: a sentence that
    introduces what the customer uses or tries (lexicon `setup_statement`: "using the stream handler …", "We're
    testing Elixir 1.19 with the logger handler.") and states no failure (`control_case.states_failure`) nor asks.

    Why: a message condensed into the problem keeps the customer's setup beside the symptom, and a release line
    naming that setup ("Special-case Ranch errors in the logger handler …") outweighed the line naming what fails
    ("Remain compatible with new translation format … Elixir 1.19")."""
    parts = _SENTENCE_BREAK.split(problem)
    setup = [bool(lexicon.pattern("setup_statement").search(part)) and not asks(part) and not states_failure(part)
             for part in parts]
    return ("".join(" " * len(part) if is_setup else part for part, is_setup in zip(parts, setup, strict=True)),
            "".join(part if is_setup else " " * len(part) for part, is_setup in zip(parts, setup, strict=True)))


def problem_terms(problem: str) -> list[Term]:
    """The condensed problem's terms, less its control statements (`without_control_statements`): what the query
    weighs fully and the judge's key concepts come from (`question.Question.problem_keys`)."""
    return analyse(without_control_statements(problem))

def _without_object_state(text: str) -> str:
    """The request with each object representation a pasted log or traceback shows reduced to its type
    ("`<Task pending name='Task-1' …>`" → "Task", "<socket.socket fd=57, family=2, …>" → "socket.socket"): the
    rest is that one object's state (its ids, fds, status words), which says nothing of what went wrong and, repeated
    object by object ("<Task pending …> got Future <Future pending>"), would weigh as the subject."""
    if "<" not in text:
        return text
    return lexicon.pattern("object_repr").sub(lambda match: match.group("type"), text)


def negated_bases(weights: dict[str, Term]) -> list[Term]:
    """The word each "un-" word of the question negates (lexicon `negating_prefix`: "unclosed" → "closed",
    "unminified" → "minified", "unhandled" → "handled"), at the un-word's weight (`_add` scales it by
    `negated_base`). Why: the customer names the defect ("`ResourceWarning: unclosed socket`"), the fix names what
    it now does ("explicitly close sockets", "Use a minified bundle")."""
    if not lexicon.weight("negated_base"):
        return []
    prefixes = tuple(lexicon.words("negating_prefix"))
    found: list[Term] = []
    for term in list(weights.values()):
        prefix = next((p for p in prefixes if term.surface.lower().startswith(p)), None)
        if term.kind == "word" and prefix is not None and len(term.surface) >= 7:
            found += [Term(t.key, t.surface, term.weight, t.kind) for t in word_terms(term.surface[len(prefix):])
                      if t.kind == "word" and t.key not in weights]
    return found


def negated_participles(problem: str, known: dict[str, Term]) -> list[Term]:
    """The "un-" word of each participle the problem negates (lexicon `negated_participle`, `negating_prefix`: "an
    internal function is not defined" → "undefined", "the file is never closed" → "unclosed"), unless the question
    has it already. Why: the mirror of `negated_bases`: the customer says what is not so, the note names the defect
    by its un-word ("Fix use of undefined variable in timeout code")."""
    if not lexicon.weight("negated_base"):
        return []
    prefixes = sorted(lexicon.words("negating_prefix"))
    return [term for match in lexicon.pattern("negated_participle").finditer(problem) for prefix in prefixes
            for term in word_terms(prefix + match.group(1).lower()) if term.kind == "word" and term.key not in known]


_STATUS_NUMBER = re.compile(r"(?<![\w.,/:-])[1-5]\d\d(?![\w.,/:-])")


def status_words(weights: dict[str, Term], text: str) -> list[Term]:
    """The words a note names an HTTP status by ("status" of "HTTP status code"; lexicon `status_word_terms`) when the
    question names one only by its number ("devtools show 404", "the transactions say 500": its class term "4xx" /
    "5xx" is there; not a measure: "500 ms"), at that number's weight × `status_word`. Why: a customer reads the
    number off a response, a note says it fixes the status ("Use `ActionDispatch::ExceptionWrapper` for correct HTTP
    status code"). A status the question writes itself keeps its own weight (`_add` keeps the strongest)."""
    if not lexicon.weight("status_word"):
        return []
    unit = lexicon.pattern("unit")  # "500 ms", "200 KB": a measure, not a status
    said = {m.group() for m in _STATUS_NUMBER.finditer(text[:MAX_ANALYSED_CHARS]) if not unit.match(text, m.end())}
    numbers = [t for t in weights.values() if t.kind == "word" and t.key in said and f"{t.key[0]}xx" in weights]
    if not numbers:
        return []
    weight = max(t.weight for t in numbers)
    return [Term(term.key, term.surface, weight, term.kind) for word in lexicon.words("status_word_terms")
            for term in word_terms(word) if term.key not in weights]


def regression_words(known: dict[str, Term], text: str) -> list[Term]:
    """The words a note undoing a regression says (lexicon `regression_note_words`: "restore") when the question says
    something used to work (`regression_cue`: "no longer starts", "stopped sending"), unless it has them already.
    Why: the customer says what broke, the fix that it brings it back ("Restore compatibility with Windows 7")."""
    if not lexicon.weight("regression_word") or not lexicon.pattern("regression_cue").search(text[:MAX_ANALYSED_CHARS]):
        return []
    return [term for word in lexicon.words("regression_note_words") for term in word_terms(word)
            if term.kind == "word" and term.key not in known]


def _without_routes(text: str) -> str:
    """The request without the customer's own routes and paths ("/api/v1/cart", "/hubs/*"): their words are the
    customer's app, which no release note names ("v1", "cart"), and would outweigh the symptom. Segments that
    look like code ("SentryCrashMachineContext.c", "sentry_sdk") are kept: stack-trace paths name the SDK's
    files."""
    def code_only(match: re.Match[str]) -> str:
        return " ".join(part for part in match.group().split("/") if _CODE_SEGMENT.search(part)) or " "
    return _PATH.sub(code_only, text or "")


def _add(weights: dict[str, Term], terms: list[Term], factor: float) -> None:
    """Keep each term's strongest occurrence; a concept named repeatedly is the subject, so it gains."""
    counts, gain = Counter(term.key for term in terms), lexicon.weight("repeat_gain")
    for term in terms:
        weight = term.weight * factor * (1 + gain * math.log(counts[term.key]))
        current = weights.get(term.key)
        if current is None or current.weight < weight:
            weights[term.key] = Term(term.key, term.surface, weight, term.kind)
