"""Tokenising for lexical matching: words, identifiers, stems, stopwords and a few synonyms.

Support messages and release notes name the same thing differently ("crashes" vs
"Fix crash", "SentryContextStorage.root()" vs "context storage"), so both sides go
through the same analysis: identifiers are kept whole *and* split into parts,
words are Porter-stemmed, conversational and generic SDK words are dropped, and a
handful of symptom synonyms fold onto one term. What a text is before its terms are read is
`cleaning`; the question-side weighing is `question_terms`, the control case taken out `control_case`.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from wif_action import lexicon
from wif_action.lexicon.cleaning import MAX_ANALYSED_CHARS, SUBJECT_VERSION, clean, versioned_names
from wif_action.lexicon.stemmer import stem

_DIGIT = re.compile(r"\d")
_JOINED_VERSION = re.compile(r"([A-Za-z][\w.+#]*)[/-]" + SUBJECT_VERSION.pattern)
_CHUNK = re.compile(r"[A-Za-z0-9_$]+(?:[.:/-]+[A-Za-z0-9_$]+)*")
_CLAUSE_BREAK = re.compile(r"[^\s'\"`*-]")
# `_CHUNK` with the text before it: group 1 is non-empty when that text breaks the clause (`_CLAUSE_BREAK`);
# group 2 is empty only after the last chunk. Possessive runs: every attempt matches where it starts (linear).
_BROKEN_CHUNK = re.compile(r"[\s'\"`*-]*+([^A-Za-z0-9_$]*+)(?:(" + _CHUNK.pattern + r")|$)")
_SEPARATORS = re.compile(r"[.:/-]+")
_CAMEL = re.compile(r"[a-z]{2}[A-Z]|[A-Z][a-z]+[A-Z]|[A-Z]{2}[a-z]{2}")  # no {2,}: linear on a long word
_CAMEL_PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_DUNDER = re.compile(r"__[A-Za-z][A-Za-z0-9]*__")
_UNDERSCORED = re.compile(r"_+[A-Za-z][A-Za-z0-9]*")  # a leading-underscore name: "__stdcall", "_private"
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


def _subject(chunk: str) -> Term | None:
    """The word a chunk names a version of when a number follows it ("Elixir", "lang/Elixir"; not "sentry-elixir",
    whose number is that package's version): its key and surface."""
    word = chunk.rsplit("/", 1)[-1] if "/" in chunk and "-" not in chunk else chunk
    if word.lower() not in versioned_names():
        return None
    terms = word_terms(word)
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


def word_terms(part: str, kind: str = "word") -> list[Term]:
    """Terms of one plain word: its stem, plus the folded synonym if any; an HTTP method in capitals, as written."""
    lower = part.lower()
    if part.isupper() and lower in lexicon.words("http_methods"):
        return [Term(part, part, lexicon.weight("part") if kind == "part" else 1.0, kind)]
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
        return [_identifier(segment), *word_terms(segment.strip("_"), "part")]
    if _UNDERSCORED.fullmatch(segment):  # "__stdcall", "_private": the name, and the word it is of
        return [_identifier(segment), *_segment_terms(segment.lstrip("_"), "part")]
    if "_" in segment.strip("_") and any(c.isalpha() for c in segment):
        terms = [_identifier(segment)]
        for part in segment.split("_"):
            terms.extend(_segment_terms(part, "part") if _is_camel(part) else word_terms(part, "part"))
        return terms
    if not _is_camel(segment):
        return word_terms(segment, kind)
    terms = [_identifier(segment)]
    for part in _CAMEL_PART.findall(segment):
        if len(part) >= 3:
            terms.extend(word_terms(part, "part"))
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
        return word_terms(joined.group(1)) + ([versioned] if versioned else [])
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
        if subject is not None and SUBJECT_VERSION.fullmatch(match.group(0)):
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
        if subject is not None and SUBJECT_VERSION.fullmatch(chunk):
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
