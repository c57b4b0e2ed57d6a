"""A HIGH rests on what the problem says fails: not on its control case ("…; Intel Macs and Linux runners work."),
not on where it happens (a platform is a gate, `objections.on_the_platform`, not evidence of the fix)."""

from __future__ import annotations

from wif_action.engines.offline import scoring
from wif_action.engines.offline.evidence import gather
from wif_action.engines.offline.ranking import BatchStatistics, RepositoryStats
from wif_action.lexicon.control_case import without_control_statements, without_what_works
from wif_action.lexicon.question_terms import query_terms
from wif_action.lexicon.terms import analyse
from wif_action.models import Confidence, PullRequest
from wif_action.platforms import named_platforms
from wif_action.question import analyse_question

NOTES = ["release health sessions"] * 200 + ["uploads proxy"] * 5


def _level(problem: str, title: str, notes: list[str] = NOTES) -> Confidence:
    question = analyse_question(problem)
    stats = RepositoryStats(BatchStatistics([*notes, title]))
    stats.load("r", list(question.terms.values()))
    pr = PullRequest(repo="r", number=4, title=title, body="", url="https://example.invalid/4")
    evidence = gather(pr, None, question.terms, stats, False, [], question.problem_keys, "r",
                      where=question.deployment_keys)
    return scoring.confidence(evidence, scoring.SHIPPED)


def _key(word: str) -> str:
    return analyse(word)[0].key


def test_a_statement_saying_what_works_is_no_part_of_the_problem():
    """The control case, a statement of its own whose verb is what works, names what is not broken: its words
    ("Intel") are neither query terms nor the problem's key terms."""
    question = analyse_question("On Apple Silicon Macs every command fails with a certificate error, although our "
                                "root CA is trusted; Intel Macs and Linux runners work.")
    assert _key("intel") not in question.terms and _key("intel") not in question.problem_keys
    assert {_key("certificate"), _key("trusted")} <= question.problem_keys


def test_the_request_texts_control_statement_goes_as_a_whole():
    """The message side (`without_what_works`) drops the same statement as a whole, not clause by clause: cut at
    "and", "Intel Macs" stayed a query term of a message-mode question. (A guard: it moves no labelled answer,
    bench/ablation.md `rule:control_case._clauses_that_complain`.)"""
    message = ("sentry-cli 3.0.1: on Apple Silicon Macs every command fails with a certificate error, although our "
               "root CA is trusted; Intel Macs and Linux runners work.")
    assert "Intel" not in without_what_works(message) and "certificate error" in without_what_works(message)
    assert _key("intel") not in query_terms("Every command fails with a certificate error.", message)


def test_a_question_is_no_statement_of_what_works():
    """A question states nothing (lexicon `asks`): "Does a later aiohttp move that work off the loop?" asks about
    "the loop", and "Is there a release that skips that work?" ends in "work" like a control statement; read as the
    control case, the ask's words of the problem were dropped from the message."""
    ask = "Does a later aiohttp move that work off the loop?"
    assert without_what_works(ask) == ask and without_what_works(ask, keep_code=True) == ask
    assert without_control_statements("Is there a release that skips that work?").split() == \
        ["Is", "there", "a", "release", "that", "skips", "that", "work?"]
    assert _key("loop") in query_terms("Static files stall every request.", f"The static handler blocks. {ask}")
    # a statement saying what works still goes
    assert "Intel" not in without_what_works("Uploads fail on arm. Intel Macs work. Does a newer CLI work?")


def test_a_clause_naming_the_symptom_stays_though_it_says_normally():
    """Only a whole statement whose verb is what works goes: "only requests that complete normally produce a
    transaction" says what is missing, so "transaction" stays."""
    problem = "Requests whose handler panics are missing from Performance; only requests that complete normally " \
              "produce a transaction."
    assert without_control_statements(problem) == problem
    assert _key("transaction") in analyse_question(problem).problem_keys


def test_a_headline_naming_only_the_control_case_is_no_high():
    """The fix of the twin that works ("Intel-based") shares the control statement's words, not the failure's."""
    problem = "Certificate uploads stall on the arm runners; the intel machines behind the corporate proxy work."
    title = "Fix corporate proxy on intel machines"
    assert _level(problem, title) != Confidence.HIGH
    assert _level("Certificate uploads stall on the arm runners with a proxy.",
                  "Fix certificate uploads stalling on arm runners") == Confidence.HIGH


def test_apple_silicon_is_a_mac():
    assert named_platforms("On Apple Silicon Macs the build fails.") == {"macos"}


def test_a_headline_naming_only_where_it_happens_is_no_high():
    """"Improve the error message on Windows and Apple Silicon Macs" names the problem's platforms, every one of
    them, and nothing of what fails: no ✓. The same headline naming the failure too is one."""
    problem = "On Windows and Apple Silicon Macs every sourcemap upload stalls forever."
    assert _level(problem, "Improve the message on Windows and Apple Silicon Macs") != Confidence.HIGH
    assert _level(problem, "Fix sourcemap uploads stalling forever on Windows") == Confidence.HIGH


def test_where_their_service_runs_is_where_too():
    """"Self-hosted" says where the customer's service runs, as a platform says where the app does: a headline
    naming only it ("… for users with self-hosted instances") and everyday words is no ✓ for a command failing on
    their self-hosted server; the same headline naming the failure is one."""
    notes = NOTES + ["releases command"] * 40 + ["sourcemap argument"] * 3
    problem = "The sourcemap command stops with an unexpected argument error when we give it our self-hosted server."
    assert analyse_question(problem).deployment_keys >= {_key("hosted")}
    assert _level(problem, "Fix the releases command for users with self-hosted Sentry instances", notes) \
        != Confidence.HIGH
    assert _level(problem, "Fix the sourcemap command rejecting the server argument", notes) == Confidence.HIGH


def test_the_word_after_where_their_service_runs_is_no_where():
    """Only the deployment word names where ("on-prem", "self-hosted"); the word after it is what runs or fails
    there: in "our self-hosted uploads stall", "uploads" is the complaint, and held as a where it could not make
    the headline fixing it a ✓ (`scoring._only_where`)."""
    question = analyse_question("Since we moved on-prem crashes never arrive; our self-hosted uploads stall forever.")
    assert question.deployment_keys == {_key("prem"), _key("self"), _key("hosted"), "self host"}
    assert _key("crashes") not in question.deployment_keys and _key("uploads") not in question.deployment_keys
    notes = ["release health sessions"] * 200 + ["stall"] * 30 + ["uploads"] * 5
    assert _level("Our self-hosted uploads stall forever.", "Fix uploads on self-hosted servers", notes) \
        == Confidence.HIGH
