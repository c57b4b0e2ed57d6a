"""The customer's control case and ask, taken out of a request before its words weigh as the symptom.

Why: "…, masking works everywhere else" names what is not broken, and "Is that handled in a newer release?" asks
whether it was fixed; read as the problem, their words ("everywhere", "handled") would match unrelated notes.
"""

from __future__ import annotations

import itertools
import re

from wif_action import lexicon
from wif_action.lexicon.terms import analyse

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


def states_failure(text: str) -> bool:
    """Whether the text says something fails: it names a failure or complains (lexicon `names_failure`,
    `complains`, `states_failure`) or uses a symptom word ("hangs", "drops")."""
    if any(lexicon.pattern(name).search(text) for name in ("names_failure", "complains", "states_failure")):
        return True
    return any(term.key in lexicon.symptom_terms() for term in analyse(text))


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

