"""The question is analysed once into a typed `Question`, and that is what every judge method receives."""

from __future__ import annotations

import inspect
from dataclasses import replace

import pytest

from indexer.registry import load_registry
from wif_action.engines.offline import OfflineJudge
from wif_action.engines.offline.evidence import gather
from wif_action.engines.offline.ranking import BatchStatistics, RepositoryStats
from wif_action.engines.openai_engine import OpenAIJudge
from wif_action.models import PullRequest, Request
from wif_action.objections import CHECKS
from wif_action.ports import Judge
from wif_action.question import Question, analyse_question, own_name_keys, question_of


def test_a_question_holds_its_analysis() -> None:
    question = analyse_question(
        "On iOS the app crashes in `SentryContextStorage.root()` when before_send returns None.",
        "Android works fine. See https://github.com/getsentry/sentry-cocoa/issues/5397 — spans recorded as "
        "internal_error are spurious.")
    assert question.platforms == {"ios"}  # Android is named as the platform that works
    assert "before_send" in question.identifiers and "sentrycontextstorage.root" in question.identifiers
    assert "sentrycontextstorage.root" in question.quoted and "before_send" not in question.quoted
    assert question.links == ("https://github.com/getsentry/sentry-cocoa/issues/5397",)
    assert not question.wants_functionality
    assert any(c.present and "internal_error" in c.words for c in question.complaints)
    assert "crash" in question.problem_keys and "crash" in question.terms


def test_missing_functionality_and_alternatives_are_read() -> None:
    question = analyse_question("Is there an option to drop slow/frozen frames from transactions?")
    assert question.wants_functionality
    assert any({"slow", "frozen"} <= group for group in question.alternatives)


def test_an_sdk_name_in_the_request_counts_little() -> None:
    registry = load_registry()
    plain = analyse_question("crash on startup", "crash on startup with sentry-cocoa")
    damped = analyse_question("crash on startup", "crash on startup with sentry-cocoa", registry)
    assert damped.terms["cocoa"].weight < plain.terms["cocoa"].weight
    assert damped.terms["crash"].weight == plain.terms["crash"].weight


def test_only_the_asked_repositorys_own_names_count_little() -> None:
    """Another repository's own name is a word of the problem: asked of sentry-java, "cocoa" of sentry-cocoa keeps
    its weight, "java" of its own name counts little, and so does "typescript" (a platform word, whichever SDK the
    registry files it under); asked of sentry-react-native, which bundles sentry-cocoa, "cocoa" counts little."""
    registry, text = load_registry(), "TypeScript build fails with sentry-java and sentry-cocoa"
    plain = analyse_question("build fails", text)
    java = analyse_question("build fails", text, registry, repo="getsentry/sentry-java")
    assert java.terms["java"].weight < plain.terms["java"].weight
    assert java.terms["cocoa"].weight == plain.terms["cocoa"].weight
    assert java.terms["typescript"].weight < plain.terms["typescript"].weight
    react_native = analyse_question("build fails", text, registry, repo="getsentry/sentry-react-native")
    assert react_native.terms["cocoa"].weight < plain.terms["cocoa"].weight
    request = Request(problem="build fails", raw_text=text, repo="getsentry/sentry-java")
    assert question_of(request, registry).terms["cocoa"].weight == plain.terms["cocoa"].weight


def test_question_of_a_request_reads_its_problem_and_raw_text() -> None:
    request = Request(problem="App hangs on launch", raw_text="Customer: app hangs on launch since 8.1")
    question = question_of(request)
    assert (question.problem, question.request_text) == (request.problem, request.raw_text)
    assert question.text == f"{request.problem}\n{request.raw_text}"


@pytest.mark.parametrize("judge", [Judge, OfflineJudge, OpenAIJudge])
@pytest.mark.parametrize("method", ["filter_relevant_entries", "score_pr_confidence", "verify_pr_match"])
def test_no_judge_method_takes_problem_strings(judge: type, method: str) -> None:
    """Every engine (and the port) takes the analysed `Question`, never `(problem, request_text)` strings."""
    parameters = inspect.signature(getattr(judge, method)).parameters
    assert "question" in parameters and not {"problem", "request_text"} & parameters.keys()
    assert parameters["question"].annotation in (Question, "Question")


def test_every_objection_takes_the_question() -> None:
    for check in CHECKS:
        assert list(inspect.signature(check).parameters)[-1] in ("question", "_question"), check.__name__


def test_the_customer_is_the_resolved_repository_the_version_and_the_platform_named() -> None:
    registry = load_registry()
    request = Request(sdk="iOS", version="8.48.0", problem="crash on launch", raw_text="crash on launch on iPadOS")
    customer = question_of(request, registry, "getsentry/sentry-cocoa").customer
    assert (customer.sdk, customer.repo, customer.version) == ("iOS", "getsentry/sentry-cocoa", "8.48.0")
    assert (customer.platforms, customer.platform_source) == (("ios",), "request")
    unnamed = question_of(replace(request, raw_text="crash on launch"), registry,
                          "getsentry/sentry-java").customer
    assert (unnamed.platforms, unnamed.platform_source) == (("android",), "sdk")
    assert question_of(request).customer.repo is None  # before a repository is resolved


def test_the_customers_own_routes_are_no_query_terms() -> None:
    """"/api/v1/cart" is the customer's app, which no release note names; a stack-trace path keeps its code-like
    segments (file and module names the SDK's notes do name)."""
    question = analyse_question("Request URLs show `/api/api/v1/cart` instead of `/api/v1/cart` under a root path.",
                                "Crash at /Users/me/Pods/Sentry/Sources/SentryCrashMachineContext.c:120")
    assert not {"v1", "cart"} & question.terms.keys()
    assert {"root", "url", "sentrycrashmachinecontext"} <= question.terms.keys()


def test_an_object_representation_in_pasted_output_counts_as_its_type() -> None:
    """"<Task pending …>", "<socket.socket fd=57, …>": a pasted traceback's object representations are one object's
    state; their type stays a term, its state words ("pending", repeated object by object) and attributes do not. An
    HTML tag ("<meta name=…>") is no representation: its attribute words stay."""
    question = analyse_question(
        "HTTPS calls from the second thread fail with `RuntimeError: Task <Task pending name='Task-7'> got Future "
        "<Future pending> attached to a different loop` and leak <socket.socket fd=57, family=2, type=1>",
        "Twig renders <meta name=\"baggage\"> twice")
    assert {"task", "futur", "socket.socket", "loop", "thread"} <= question.terms.keys()
    assert not {"pend", "fd", "famili"} & question.terms.keys()
    assert "baggag" in question.terms


def test_quoted_code_is_the_terms_of_quoted_code_that_names_no_failure() -> None:
    """`Question.quoted_code`: every term of a quoted span naming code (a command, an option), not of a quoted
    error (an exception class, a symptom word) nor of quoted prose without code."""
    question = analyse_question(
        "`php artisan sentry:test` times out; `TypeError: object of type 'HttpUrl' has no len()`; "
        "it says \"request failed\"; `app crashes in sentry_init`", "")
    assert {"sentry:test", "artisan", "php artisan"} <= question.quoted_code
    assert not {"typeerror", "httpurl", "len"} & question.quoted_code  # a quoted error
    assert not {"request", "fail"} & question.quoted_code  # quoted prose
    assert "sentry_init" not in question.quoted_code  # code, but the span names the failure ("crashes")


def test_a_long_dotted_name_in_angle_brackets_is_read_in_one_pass() -> None:
    """A hostile message of one dotted name after a "<" and no ">" (the object-representation pattern tried every
    split of its dotted parts: 32 KB took 15 s, this one minutes): analysed like any text, its parts kept as
    one dotted identifier and a closed representation still reduced to its type."""
    dotted = "a" + ".b" * 50_000
    question = analyse_question(f"pending crash <{dotted} ", "")
    assert "crash" in question.terms and "pend" in question.terms  # not a representation: no ">" closes it
    assert "pend" not in analyse_question(f"<io.{'b.' * 1000}Reader pending> crash", "").terms


def test_the_asked_sdks_own_package_name_is_no_evidence():
    """Every note of sentry-xamarin is about it: "Sentry.Xamarin" in the request says which SDK, so no note is
    credited with it (`Question.own_names`; a note's "SentryXamarinFormsIntegration" named "xamarin"). A word the
    text also uses on its own, and a package naming an integration (another word than the SDK's), stay evidence."""
    registry = load_registry()
    xamarin = Request(sdk="sentry-xamarin", version="1.0.0", problem="",
                      raw_text="Sentry.Xamarin 1.0.0: `NullReferenceException` in Sentry.Xamarin's breadcrumb code")
    question = question_of(xamarin, registry, "getsentry/sentry-xamarin")
    assert {"xamarin", "sentry.xamarin"} <= question.own_names and "breadcrumb" not in question.own_names
    pull = PullRequest(repo="getsentry/sentry-xamarin", number=58,
                       title="Fix Null reference on SentryXamarinFormsIntegration.Register", url="https://x/58")
    stats = RepositoryStats(BatchStatistics([pull.title, "Fix null data on breadcrumb."]))
    stats.load(pull.repo, list(question.terms.values()))
    named = gather(pull, None, question.terms, stats, False, [], unmatched=question.own_names).headline
    assert "xamarin" in gather(pull, None, question.terms, stats, False, []).headline and "xamarin" not in named
    forms = Request(sdk="sentry-xamarin", version="1.0.0", problem="",
                    raw_text="Sentry.Xamarin.Forms 1.0.0: crash when the Xamarin app starts")
    assert "xamarin" not in question_of(forms, registry, "getsentry/sentry-xamarin").own_names
    laravel = Request(sdk="sentry-laravel", version="4.6.0", problem="With Laravel Octane only the first request",
                      raw_text="Customer uses sentry-laravel 4.6.0 with Octane")
    assert "laravel" not in question_of(laravel, registry, "getsentry/sentry-laravel").own_names
    assert own_name_keys("Customer uses sentry-laravel 4.6.0 with Octane", "getsentry/sentry-laravel",
                         registry) == {"laravel"}


def test_a_member_named_through_the_sdks_own_name_weighs_as_a_code_name(tmp_path) -> None:
    """"`zap.Time("expires", t)` logs wrong dates": notes name the SDK's API without the SDK ("Fix handling of `Time`
    values"), so "Time" weighs as the code name it is, not as a part split out of one; a member of another owner
    ("time.Time") stays a part."""
    path = tmp_path / "registry.json"
    path.write_text('{"repositories": {"acme/zap": {"aliases": ["zap"]}}}')
    registry, text = load_registry(path), "`zap.Time(\"expires\", t)` logs wrong dates for far dates"
    plain = analyse_question(text, f"zap 1.14.0: {text}", registry, repo="acme/zap")
    assert plain.terms["time"].weight == plain.terms["zap.time"].weight
    assert plain.terms["zap"].weight < plain.terms["time"].weight
    other = analyse_question("`time.Time{}` logs as a wrong date", "zap 1.14.0", registry, repo="acme/zap")
    assert other.terms["time"].weight < other.terms["time.time"].weight
