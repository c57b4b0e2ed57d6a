"""An issue tracker's ticket key ("JAVA-559", "ENG-42") is a reference, not text to judge (lexicon
`pattern.tracker_key`, lexicon/cleaning.py `clean`): its number is no HTTP status, its project no word. Names whose
number belongs to them (lexicon `numbered_names`, `versioned_names`) and other shapes stay."""

from __future__ import annotations

import pytest

from wif_action.lexicon.cleaning import clean
from wif_action.lexicon.terms import analyse
from wif_action.models import Confidence, PullRequest, Score
from wif_action.objections import of_the_failure_asked
from wif_action.question import analyse_question

TICKETS = ["(JAVA-559)", "PYD-164:", "see ENG-42", "LIN-1234,", "[JS-2024]", "RN-111", "NG12-15", "SDK-290"]
# Each keeps its name and its number as written: encodings, hashes, standards, models, error codes, advisories,
# versions joined to their word, and words that are no key (one capital, lower case, a word after the number).
SURVIVE = ["UTF-8", "UTF-16LE", "SHA-256", "ISO-8601", "RFC-7231", "PEP-249", "PSR-3", "GPT-5", "GPT-4o", "GCC-11",
           "JDK-17", "ITMS-91053", "ORA-00942", "CWE-79", "CVE-2024-1234", "GO-2025-3487", "GHSA-8fgc-7cc6",
           "HTTP-2", "OTP-28", "ES-2015", "Win-32", "X-Forwarded-For", "sentry-java-12", "foo-JAVA-12",
           "SCR-20240520-abc.png", "Elixir-1.19"]


@pytest.mark.parametrize("ticket", TICKETS)
def test_a_ticket_key_is_taken_out(ticket):
    key = ticket.strip("()[]:,").removeprefix("see ")
    cleaned = clean(f"Fix the crash {ticket} on start")
    assert key not in cleaned and key.split("-")[0] not in cleaned
    assert cleaned.startswith("Fix the crash ") and cleaned.endswith(" on start")


@pytest.mark.parametrize("name", SURVIVE)
def test_a_name_with_its_number_is_no_ticket_key(name):
    assert name in clean(f"Fix {name} handling")


def test_a_ticket_number_reads_as_no_http_status():
    """"(JAVA-559)" on a PR title read "559" as a 5xx failure and "java" as a word of the fix."""
    keys = {term.key for term in analyse("fix(android): Stop duplicating attachments on native events (JAVA-559)")}
    assert keys.isdisjoint({"559", "5xx", "java"})
    assert "5xx" in {term.key for term in analyse("the upload fails with a 503")}


def test_a_fix_citing_a_ticket_is_not_the_fix_of_another_failure():
    """The kind-of-failure objection (objections.of_the_failure_asked) read a ticket key's number as the failure a
    headline names: a fix naming no failure but citing "ENG-503" was "another failure (5xx)" for a hang."""
    frozen = analyse_question("Session replays look frozen: a segment shows one screen for seconds.")
    pull = PullRequest(repo="o/r", number=1, title="Remove the preview display link (ENG-503)", body="",
                       url="https://example.invalid/1")
    assert of_the_failure_asked(Score(confidence=Confidence.HIGH, reason="R."), pull, None, frozen) is None


def test_a_pasted_ticket_key_names_no_failure_of_the_question():
    """A customer message citing its own ticket ("internal ticket OPS-502") does not say a 5xx response failed."""
    question = analyse_question("Session replays look frozen (internal ticket OPS-502): one screen for seconds.")
    assert "5xx" not in question.problem_keys
