"""Tokenising for lexical matching: words, identifiers, stems, stopwords and a few synonyms.

Support messages and release notes name the same thing differently ("crashes" vs
"Fix crash", "SentryContextStorage.root()" vs "context storage"), so both sides go
through the same analysis: identifiers are kept whole *and* split into parts,
words are Porter-stemmed, conversational and generic SDK words are dropped, and a
handful of symptom synonyms fold onto one term.
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from wif_action import lexicon
from wif_action.lexicon.stemmer import stem

MAX_ANALYSED_CHARS = 20_000  # bounds work on huge problems and PR bodies
MAX_QUERY_TERMS = 160  # each query term costs one FTS5 count per repository

# Query-side weights of the kinds of terms: lexicon.toml [weight] (identifier, part, bigram, synonym, weak_factor,
# quoted_gain, repeat_gain, request_factor), read where used; the two bounds on work above stay here.

_URL = re.compile(r"https?://\S+")
# An absolute path of two or more segments ("/api/v1/cart", "/hubs/*"): the customer's own routes and files.
_CODE_SEGMENT = re.compile(r"[a-z][A-Z]|_|\.\w{1,4}$")  # camelCase, snake_case, a file's extension
_PATH = re.compile(r"(?<![\w.~/])/[\w.*:{}-]+(?:/[\w.*:{}-]+)+/?")
_REFERENCE = re.compile(r"(?<![\w/])(?:[\w.-]+/[\w.-]+)?#\d+\b|\bGH-\d+\b|(?<![\w/])@[\w-]+(?![\w/-])")
_VERSION_LIKE = re.compile(r"(?<![\w.])v?\d+(?:\.\d+)+(?:[-+][\w.]+)?")
_NOISE_NUMBER = re.compile(r"\d+(?:[.,]\d+)?\s*%|\b\d+(?:m|kb|mb|gb|k|x|px|fps)\b|\b\d+(?:st|nd|rd|th)\b",
                           re.IGNORECASE)
_DIGIT = re.compile(r"\d")
# A runtime's or protocol's version ("Elixir 1.19", "Unity 6", "HTTP/2", "Elixir-1.19.0"): the word before it
# (lexicon `versioned_names`), the number as written, and the number joined to its word.
_SUBJECT_BEFORE = re.compile(r"(?<![\w.+#-])([A-Za-z][\w.+#]*)[ \t/-]{1,2}$")
_SUBJECT_VERSION = re.compile(r"(\d{1,4}(?:\.\d{1,4}){0,2})")
_JOINED_VERSION = re.compile(r"([A-Za-z][\w.+#]*)[/-]" + _SUBJECT_VERSION.pattern)
_CHUNK = re.compile(r"[A-Za-z0-9_$]+(?:[.:/-]+[A-Za-z0-9_$]+)*")
_CLAUSE_BREAK = re.compile(r"[^\s'\"`*-]")
# `_CHUNK` with the text before it: group 1 is non-empty when that text breaks the clause (`_CLAUSE_BREAK`);
# group 2 is empty only after the last chunk. Possessive runs: every attempt matches where it starts (linear).
_BROKEN_CHUNK = re.compile(r"[\s'\"`*-]*+([^A-Za-z0-9_$]*+)(?:(" + _CHUNK.pattern + r")|$)")
_SEPARATORS = re.compile(r"[.:/-]+")
_CAMEL = re.compile(r"[a-z]{2}[A-Z]|[A-Z][a-z]+[A-Z]|[A-Z]{2}[a-z]{2}")  # no {2,}: linear on a long word
_CAMEL_PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_DUNDER = re.compile(r"__[A-Za-z][A-Za-z0-9]*__")
_QUOTED = re.compile(r"`([^`\n]{1,200})`|\"([^\"\n]{2,200})\"|'([^'\n]{3,200})'")
# … where a single quote opens and closes a span, not an apostrophe ("the SDK's types only accept the 'x' value")
_QUOTED_ALONE = re.compile(r"`[^`\n]{1,200}`|\"[^\"\n]{2,200}\"|(?<!\w)'[^'\n]{3,200}'(?!\w)")


@dataclass(frozen=True)
class Term:
    """One analysed term: `key` is what is matched, `surface` what FTS5 counts (a word or a phrase)."""

    key: str
    surface: str
    weight: float = 1.0
    kind: str = "word"  # word, identifier, part, synonym, bigram

    @property
    def identifier(self) -> bool:
        return self.kind == "identifier"


def clean(text: str) -> str:
    """Text without URLs, PR/issue references, @mentions, versions and measurements. A pattern is applied only
    when the text holds a character every match of it needs (a substitution only ever adds spaces): most notes
    cite no URL and most words hold no digit, and the skipped scans were a third of counting an index run."""
    text = (text or "")[:MAX_ANALYSED_CHARS]
    if "http" in text:
        text = _URL.sub(" ", text)
    if "#" in text or "@" in text or "GH-" in text:
        text = _REFERENCE.sub(" ", text)
    lower = text.lower()
    for name, reads, hints in lexicon.reading_patterns():
        if any(hint in lower for hint in hints):
            text = lexicon.pattern(name).sub(_also_reads(reads), text)
    if _DIGIT.search(text) is not None:
        if "." in text:
            text = _VERSION_LIKE.sub(_version_or_space, text)
        text = _NOISE_NUMBER.sub(" ", lexicon.duration_pattern().sub(_seconds, text))
    lower = text.lower()
    if any(hint in lower for hint in lexicon.spelled_duration_hints()):
        text = lexicon.spelled_duration_pattern().sub(_spelled_seconds, text)
        text = lexicon.pattern("subsecond").sub(_subsecond, text)
    return text


def _also_reads(reads: str) -> Callable[[re.Match[str]], str]:
    """A phrase followed by what it also reads as (its pattern's `reads`, groups expanded: "32-bit float" →
    "32-bit float float32"); the phrase's own words stay, as a note may use them too."""
    return lambda match: f"{match.group()} {match.expand(reads)} "


def _seconds(match: re.Match[str]) -> str:
    """A duration (`lexicon.duration_pattern`) as one term: whole seconds ("5 min" → "300s"), else milliseconds
    ("1500ms" stays "1500ms"). Why: the same timeout written in two units is one term (lexicon `[duration_unit]`)."""
    number = match.group(1)
    count = int(number) if number.isdigit() else lexicon.number_words()[number.lower()]
    length = count * lexicon.duration_units()[match.group(2).lower()]
    return f"{length // 1000}s" if length % 1000 == 0 else f"{length}ms"


def _spelled_seconds(match: re.Match[str]) -> str:
    """A spelled-out duration (`lexicon.spelled_duration_pattern`: "two minutes") as its seconds and its unit word
    ("120s minutes"). Why both: the seconds meet a note's "120s"; people also write the unit alone ("more than a
    minute"), which only the unit word meets. A tens word before an `ordinal_units` word ("the thirty-second
    release", "twenty second") also spells an ordinal (the 32nd, the 22nd): no duration is read there; "thirty
    seconds" and "five-second" still are one."""
    ordinal = match.group(2).lower() in lexicon.words("ordinal_units")
    if ordinal and _tens(lexicon.number_words()[match.group(1).lower()]):
        return match.group(0)
    return f"{_seconds(match)} {match.group(2)}"


def _tens(value: int) -> bool:
    """Twenty, thirty, … ninety: the numbers a compound ordinal starts with ("forty-second")."""
    return value > 10 and value % 10 == 0


def _subsecond(match: re.Match[str]) -> str:
    """A phrase of a duration below one second (lexicon `pattern.subsecond`), followed by the one term every such
    phrase shares; the phrase's own words stay ("sub" is what notes have been counted by)."""
    return f"{match.group()} subsecond"


def _version_or_space(match: re.Match[str]) -> str:
    """A version is noise (the SDK's, a dependency's) unless it is a runtime's or protocol's ("Elixir 1.19")."""
    found = match.group()
    if _SUBJECT_VERSION.fullmatch(found):
        before = _SUBJECT_BEFORE.search(match.string, max(0, match.start() - 40), match.start())
        if before is not None and before.group(1).lower() in _versioned():
            return found
    return " "


def _versioned() -> frozenset[str]:
    return lexicon.words("versioned_names")


def _subject(chunk: str) -> Term | None:
    """The word a chunk names a version of when a number follows it ("Elixir", "lang/Elixir"; not "sentry-elixir",
    whose number is that package's version): its key and surface."""
    word = chunk.rsplit("/", 1)[-1] if "/" in chunk and "-" not in chunk else chunk
    if word.lower() not in _versioned():
        return None
    terms = _word_terms(word)
    return Term(terms[0].key if terms else word.lower(), word)


def _versioned_term(subject: Term, number: str) -> Term | None:
    """ "Elixir 1.19" as one term, keyed by the major and a minor that is not 0 ("Unity-6.0" is "uniti 6"); None for a
    number that is a term of its own (a 3-digit code: the ordinary bigram already pairs it)."""
    if _keep_word(number):
        return None
    parts = number.split(".")[:2]
    while len(parts) > 1 and parts[-1].strip("0") == "":
        parts.pop()
    version = ".".join(parts)
    return Term(f"{subject.key} {version}", f"{subject.surface} {version}", lexicon.weight("bigram"), "bigram")


def _word_terms(part: str, kind: str = "word") -> list[Term]:
    """Terms of one plain word: its stem, plus the folded synonym if any."""
    lower = part.lower()
    stopwords = lexicon.stopwords()
    if lower in stopwords or not _keep_word(lower):
        return []
    key = stem(lower) if lower.isalpha() else lower
    key = lexicon.equivalents().get(key, key)  # "deps" is "dependencies", "mutex" is "lock"
    if key in stopwords:
        return []
    weight = (lexicon.weight("part") if kind == "part" else 1.0) * \
        (lexicon.weight("weak_factor") if key in lexicon.weak_words() else 1.0)
    terms = [Term(key, lower, weight, kind)]
    synonyms = lexicon.synonyms()
    folded = synonyms.get(key) or synonyms.get(lower) or _status_class(lower)
    if folded and folded != key:
        terms.append(Term(folded, lexicon.symptom_names().get(folded, folded), lexicon.weight("synonym"), "synonym"))
    return terms


def _status_class(word: str) -> str | None:
    """HTTP status codes fold onto their class: "404" also counts as "4xx"."""
    return f"{word[0]}xx" if len(word) == 3 and word.isdigit() and word[0] in "12345" else None


def _keep_word(lower: str) -> bool:
    """Words worth matching: 2+ letters, 3-digit codes (HTTP statuses), mixed tokens (4xx, utf8)."""
    if lower.isdigit():
        return len(lower) == 3
    if lower.isalpha():
        return len(lower) >= 2
    return len(lower) >= 2 and any(c.isalpha() for c in lower)


def _is_camel(segment: str) -> bool:
    """Words with an inner capital between real parts ("addBreadcrumb", "HTTPTransport"), not "iOS"/"dSYMs"."""
    return bool(_CAMEL.search(segment))


def _segment_terms(segment: str, kind: str) -> list[Term]:
    """A snake_case or camelCase segment is kept whole (as people search for it) and split into words."""
    if _DUNDER.fullmatch(segment):  # "__init__", "__cause__": a code name, as people grep for it
        return [_identifier(segment), *_word_terms(segment.strip("_"), "part")]
    if "_" in segment.strip("_") and any(c.isalpha() for c in segment):
        terms = [_identifier(segment)]
        for part in segment.split("_"):
            terms.extend(_segment_terms(part, "part") if _is_camel(part) else _word_terms(part, "part"))
        return terms
    if not _is_camel(segment):
        return _word_terms(segment, kind)
    terms = [_identifier(segment)]
    for part in _CAMEL_PART.findall(segment):
        if len(part) >= 3:
            terms.extend(_word_terms(part, "part"))
    return terms


def _identifier(text: str) -> Term:
    """A code name, keyed as the same letters written as one lower-case word would be ("OpenCensus" and a note's
    "opencensus", "CocoaPods" and "cocoapods": one key), so a name the customer writes in CamelCase meets the note
    that writes it in lower case, and the other way round."""
    lower = text.lower()
    return Term(stem(lower) if lower.isalpha() else lower, text, lexicon.weight("identifier"), "identifier")


def _chunk_terms(chunk: str) -> list[Term]:
    """Terms of one run of word characters joined by `.`, `:`, `/` or `-`."""
    joined = _JOINED_VERSION.fullmatch(chunk) if _DIGIT.search(chunk) else None
    if joined is not None and (subject := _subject(joined.group(1))) is not None:  # "HTTP/2", "Elixir-1.19.0"
        versioned = _versioned_term(subject, joined.group(2))
        return _word_terms(joined.group(1)) + ([versioned] if versioned else [])
    segments = [s for s in _SEPARATORS.split(chunk) if s.strip("_")]
    split = len(segments) > 1 and bool(re.search(r"[.:]", chunk))
    terms: list[Term] = []
    whole = chunk.strip("._:-/")
    if split and len(whole) <= 80 and max(len(segment) for segment in segments) >= 3:
        terms.append(_identifier(whole))
    for index, segment in enumerate(segments):
        if split and _domain_end(chunk, segments, index):
            continue
        terms.extend(_segment_terms(segment, "part" if split else "word"))
    for term in list(terms):
        folded = lexicon.synonyms().get(term.key) if term.kind == "identifier" else None
        if folded:
            terms.append(Term(folded, lexicon.symptom_names().get(folded, folded), lexicon.weight("synonym"),
                              "synonym"))
    return terms


def _domain_end(chunk: str, segments: list[str], index: int) -> bool:
    """Whether segment `index` is a dotted name's top-level domain at either end (lexicon `domain_suffixes`: "io" of
    "sentry.io", of "io.sentry.android"): no word of the name, so it never matches another "io"."""
    if index not in (0, len(segments) - 1) or segments[index].lower() not in lexicon.words("domain_suffixes"):
        return False
    return chunk.startswith(segments[index] + ".") if index == 0 else chunk.endswith("." + segments[index])


def analyse(text: str, chunks: dict[str, list[Term]] | None = None) -> list[Term]:
    """All terms of a text in order, repeats included, plus bigrams of words in the same clause. `chunks`: the
    terms of chunks already analysed, kept across many texts (an index run's ~20k entries repeat their words)."""
    text = clean(text)
    terms: list[Term] = []
    previous: Term | None = None
    subject: Term | None = None  # the runtime or protocol a number right after names the version of
    end = 0
    for match in _CHUNK.finditer(text):
        if _CLAUSE_BREAK.search(text, end, match.start()):
            previous = subject = None
        end = match.end()
        if subject is not None and _SUBJECT_VERSION.fullmatch(match.group(0)):
            versioned = _versioned_term(subject, match.group(0))
            if versioned is not None:
                terms.append(versioned)
        subject = _subject(match.group(0))
        for term in _chunk_terms(match.group(0)) if chunks is None else _memoised(match.group(0), chunks):
            terms.append(term)
            if term.kind not in ("word", "part"):
                continue
            if previous is not None and previous.key != term.key:
                weak = previous.key in lexicon.weak_words() and term.key in lexicon.weak_words()
                terms.append(Term(f"{previous.key} {term.key}", f"{previous.surface} {term.surface}",
                                  lexicon.weight("bigram") * (lexicon.weight("weak_factor") if weak else 1.0),
                                  "bigram"))
            previous = term
    return terms


def _memoised(chunk: str, chunks: dict[str, list[Term]]) -> list[Term]:
    found = chunks.get(chunk)
    if found is None:
        found = chunks[chunk] = _chunk_terms(chunk)
    return found


# A chunk's keys as `term_counts` appends them: those before its first word (or part), that word, the keys after
# it with the bigrams inside the chunk, and its last word (None: no word, the previous one carries on).
_Keys = tuple[tuple[str, ...], str | None, tuple[str, ...], str | None]


def term_counts(text: str, chunks: dict[str, _Keys] | None = None) -> Counter[str]:
    """Term frequencies of a text, for BM25 documents: the keys `analyse` gives, in its order (every stored count
    of schema m009 comes from here; tests/test_term_index.py holds the two equal on every cached note).

    Why not `analyse`: an index run counts ~20k notes. Each chunk's keys are worked out once (`chunks`, kept across
    texts: notes repeat their words), with the bigrams inside it; only the bigram joining it to the previous word
    is built per occurrence, and one `findall` finds the chunks and the clause breaks between them."""
    memo: dict[str, _Keys] = {} if chunks is None else chunks
    keys: list[str] = []
    append, extend = keys.append, keys.extend
    previous: str | None = None
    subject: Term | None = None  # as `analyse`: a number right after "Elixir" is Elixir's version
    for broken, chunk in _BROKEN_CHUNK.findall(clean(text)):
        if broken:
            previous = subject = None
        if subject is not None and _SUBJECT_VERSION.fullmatch(chunk):
            versioned = _versioned_term(subject, chunk)
            if versioned is not None:
                append(versioned.key)
        subject = _subject(chunk) if chunk else None
        found = memo.get(chunk)
        if found is None:
            if not chunk:
                continue
            found = memo[chunk] = _chunk_keys(chunk)
        before, first, after, last = found
        if before:
            extend(before)
        if first is None:
            continue
        append(first)
        if previous is not None and previous != first:
            append(f"{previous} {first}")
        if after:
            extend(after)
        previous = last
    return Counter(keys)


def _chunk_keys(chunk: str) -> _Keys:
    """`term_counts`'s view of one chunk's terms (see `_Keys`)."""
    terms = _chunk_terms(chunk)
    words = [index for index, term in enumerate(terms) if term.kind in ("word", "part")]
    if not words:
        return tuple(term.key for term in terms), None, (), None
    start = words[0]
    previous = terms[start].key
    after: list[str] = []
    for term in terms[start + 1:]:
        after.append(term.key)
        if term.kind in ("word", "part"):
            if previous != term.key:
                after.append(f"{previous} {term.key}")
            previous = term.key
    return tuple(term.key for term in terms[:start]), terms[start].key, tuple(after), previous


_MEMBER = re.compile(r"[.:]+")  # how a member is joined to its owner ("AxiosError.toJSON", "ActiveSupport::X")


def qualified_members(text: str) -> list[tuple[str, frozenset[str]]]:
    """Each member a text names through its owner ("AxiosError.toJSON", "ActiveSupport::TimeWithZone"): the key of
    the member ("tojson") and those of its owners ("axioserror"), one pair per occurrence. Why: a method name is
    shared by many classes ("toJSON", "close"); which one a text means is said by its owner."""
    found = []
    for match in _CHUNK.finditer(clean(text)):
        chunk = match.group(0).strip(".:")
        if "/" in chunk or "-" in chunk:
            continue  # a path or a package name, not code
        segments = [_segment_terms(segment, "word") for segment in _MEMBER.split(chunk)]
        if len(segments) > 1 and all(segments):
            found.append((segments[-1][0].key, frozenset(terms[0].key for terms in segments[:-1])))
    return found


_ALTERNATIVES = re.compile(r"(?<![\w@/.:-])[A-Za-z]{2,}(?:/[A-Za-z]{2,})+(?![\w/.-])")


def alternatives(text: str) -> tuple[frozenset[str], ...]:
    """Words written as alternatives of one idea ("slow/frozen frames", "timeouts/refused connections"), as
    groups of stems: naming both is naming that idea once. Package names (@sentry/react), paths and URLs
    are not alternatives."""
    groups = []
    for match in _ALTERNATIVES.finditer((text or "")[:MAX_ANALYSED_CHARS]):
        stems = frozenset(t.key for word in match.group().split("/") for t in analyse(word) if t.kind == "word")
        if len(stems) > 1:
            groups.append(stems)
    return tuple(groups)


def quoted_spans(text: str) -> list[str]:
    """Text inside backticks or quotes: error messages and API names people copy verbatim."""
    found = []
    for match in _QUOTED.finditer((text or "")[:MAX_ANALYSED_CHARS]):
        found.append(next(group for group in match.groups() if group))
    return found


def without_quoted(text: str) -> str:
    """The text with its quoted spans (`quoted_spans`) blanked out: what the customer wrote in their own words, not
    what they copied (an error message, a log line)."""
    return _QUOTED_ALONE.sub(" ", (text or "")[:MAX_ANALYSED_CHARS])


def query_terms(problem: str, request_text: str = "") -> dict[str, Term]:
    """Weighted, de-duplicated query terms: the problem counts fully, the rest of the request less.

    Why: the problem is the condensed symptom; the raw request adds context words
    (framework names, what the customer tried) that are weaker evidence.
    """
    weights: dict[str, Term] = {}
    problem, request_text = (_without_routes(_without_object_state(text)) for text in (problem, request_text))
    _add(weights, problem_terms(problem), 1.0)
    complaint = without_what_works(request_text, keep_code=True)
    _add(weights, analyse(complaint), lexicon.weight("request_factor"))
    bigram = lexicon.weight("bigram")  # an acronym stands for a phrase of the question: it weighs as one
    _add(weights, acronyms(problem), bigram)
    _add(weights, acronyms(complaint), bigram * lexicon.weight("request_factor"))
    quoted = {t.key for span in quoted_spans(problem + "\n" + request_text) for t in analyse(span)}
    for key in quoted & weights.keys():
        term = weights[key]
        weights[key] = Term(term.key, term.surface, term.weight * lexicon.weight("quoted_gain"), term.kind)
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
        found += _word_terms("".join(word[0] for word in re.split(r"[- ]", match.group())).lower())
    return found


_SENTENCE_BREAK = re.compile(r"((?<=[.!?])\s+|\s*\n\s*)")  # kept by re.split: offsets stay


def without_what_works(text: str, keep_code: bool = False) -> str:
    """The text less its clauses saying what works ("…, masking works everywhere else", "although the scheduled
    commands run fine", "With the default transport it backs off correctly.") and its statements that are the
    control case as a whole (`control_statement`: "…; Intel Macs and Linux runners work."), sentence by sentence,
    offsets kept by blanks: the customer's control case names what is not broken, and its words ("everywhere",
    "scheduled commands", "default transport", "Intel") would weigh as the symptom's. A clause that also complains
    stays."""
    works, complains = lexicon.pattern("works_here"), lexicon.pattern("complains")
    if not works.search(text):
        return text
    return "".join(part if asks(part) else _clauses_that_complain(part, works, complains, keep_code)
                   for part in _SENTENCE_BREAK.split(text))


def asks(sentence: str) -> bool:
    """Whether the sentence is a question (lexicon `asks`: "Does a newer plugin work with K2?", "Does a later aiohttp
    move that work off the loop?"). Why: a question states nothing, so none of it is the control case, whatever
    "work" or "fine" it uses; read as one, the ask's own words of the problem ("loop") were dropped."""
    return bool(lexicon.pattern("asks").search(sentence))


def problem_terms(problem: str) -> list[Term]:
    """The condensed problem's terms, less its control statements (`without_control_statements`): what the query
    weighs fully and the judge's key concepts come from (`question.Question.problem_keys`)."""
    return analyse(without_control_statements(problem))


def without_control_statements(text: str) -> str:
    """The text less its statements that are the control case as a whole (`control_statement`), their code names
    kept, offsets kept by blanks. Why only those for the condensed problem (a form's field, the extracted symptom):
    its clauses are the symptom's own ("only requests that complete normally produce a transaction" names what is
    missing), while a statement like "Intel Macs and Linux runners work." names only what is not broken."""
    if not lexicon.pattern("works_here").search(text):
        return text
    breaks = [0, *(m.end() for m in lexicon.pattern("statement_break").finditer(text)), len(text)]
    return "".join(_code_of(part) if control_statement(part) else part
                   for start, end in itertools.pairwise(breaks) if (part := text[start:end]))


def control_statement(statement: str) -> bool:
    """"…fails with a certificate error; Intel Macs and Linux runners work.": a statement whose verb is what works
    (`works_last`), that complains of nothing, names no failure and sets nothing against it ("but", "although":
    the other side of a contrast may be the symptom) is the customer's control case as a whole, however far its
    subject is from its verb ("Intel Macs and Linux runners" is not cut from "work" at "and"); a question (`asks`)
    states nothing."""
    return not asks(statement) and bool(lexicon.pattern("works_last").search(statement)) and not any(
        lexicon.pattern(name).search(statement) for name in ("complains", "names_failure", "contrast_word"))


def without_the_ask(text: str) -> str:
    """The text with the words of its ask blanked (offsets kept): in a question sentence about a release
    (lexicon `release_ask`: "Is that handled in a newer release?", "Is there a version that handles this better?"), its
    fix verbs and `ask_words` (`ask_word`). Why: they ask whether it was fixed, not what is wrong, and release notes
    start fixes with the same verbs ("Handle `# fmt: skip` followed by a comment"), so they matched any such line."""
    if "?" not in text:
        return text
    ask, word = lexicon.pattern("release_ask"), lexicon.pattern("ask_word")
    return "".join(word.sub(lambda match: " " * len(match.group()), part)
                   if part.rstrip().endswith("?") and ask.search(part) else part
                   for part in _SENTENCE_BREAK.split(text))


def _clauses_that_complain(sentence: str, works: re.Pattern[str], complains: re.Pattern[str], keep_code: bool) -> str:
    """The sentence less its control statements (`control_statement`) and, in the others, its clauses saying what
    works and complaining of nothing."""
    if not works.search(sentence):
        return sentence
    breaks = [0, *(m.end() for m in lexicon.pattern("statement_break").finditer(sentence)), len(sentence)]
    return "".join((_code_of(part) if keep_code else " ") if control_statement(part)
                   else _clauses_of(part, works, complains, keep_code)
                   for start, end in itertools.pairwise(breaks) if (part := sentence[start:end]))


def _clauses_of(statement: str, works: re.Pattern[str], complains: re.Pattern[str], keep_code: bool) -> str:
    if not works.search(statement):
        return statement
    breaks = [0, *(m.start() for m in lexicon.pattern("works_clause_break").finditer(statement)), len(statement)]
    clauses = [statement[start:end] for start, end in itertools.pairwise(breaks)]
    return "".join((_code_of(clause) if keep_code else " ") if works.search(clause) and not complains.search(clause)
                   else clause for clause in clauses)


def _code_of(clause: str) -> str:
    """A control clause's code names ("SentryCapacitor.crash() crashes the iOS app as expected"): the API it tries
    is what fails elsewhere, the prose around it is the setup that works."""
    return " " + " ".join(term.surface for term in analyse(clause) if term.identifier) + " "


def _without_object_state(text: str) -> str:
    """The request with each object representation a pasted log or traceback shows reduced to its type
    ("`<Task pending name='Task-1' …>`" → "Task", "<socket.socket fd=57, family=2, …>" → "socket.socket"): the
    rest is that one object's state (its ids, fds, status words), which says nothing of what went wrong and, repeated
    object by object ("<Task pending …> got Future <Future pending>"), would weigh as the subject."""
    if "<" not in text:
        return text
    return lexicon.pattern("object_repr").sub(lambda match: match.group("type"), text)


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
