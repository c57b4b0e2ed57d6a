"""The message grammar's entries (how a support message names its version and SDK), each with a message it is needed
for.

Why: the team rule deletes an entry that changes no case. These entries change none of the labelled eval cases (all
of which state the version plainly), so each is kept by a support message of a kind people write, which it reads
right and which reads wrong with the entry switched off (`bench/ablation.md`, "Kept by a message"). The second test
switches each entry off as `bench/ablate.py` does: if another rule ever reads the message right on its own, the entry
is dead and goes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from importlib import resources

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from indexer.registry import Registry, load_registry
from wif_action import lexicon
from wif_action.engines.offline.extraction import _without_knock_on, extract
from wif_action.lexicon.names import distinctive_part

REGISTRY = load_registry()
PYTHON, COCOA, JAVA, RUBY = (f"getsentry/sentry-{name}" for name in ("python", "cocoa", "java", "ruby"))

# entry, message, (repository, version) it reads, the problem it reads (None: not checked)
READINGS = [
    # a number with a unit is a measurement: no version given, so WIF asks (off: "on 1.5")
    ("pattern:unit", "Customer on sentry-python: cold starts are 1.5 s slower with the AWS Lambda integration enabled",
     (PYTHON, None), None),
    # a later release asked about is not the customer's (off: "on 8.21.0")
    ("pattern:later_version", "Customer on sentry-cocoa sees a crash on launch. Would the latest 8.21.0 help?",
     (COCOA, None), None),
    # an upgrade proposed is not the version in use (off: "on 8.21.0")
    ("pattern:upgrade_proposed",
     "Customer on sentry-cocoa 8.2.0 sees a crash on launch. Would upgrading to 8.21.0 help?", (COCOA, "8.2.0"), None),
    ("pattern:upgrade_proposed", "sentry-cocoa: crash on launch; should they upgrade to 8.21.0?", (COCOA, None), None),
    # the version it worked in is not the broken one (off: 8.1.0)
    ("pattern:worked_in", "sentry-cocoa: worked in 8.1.0, broken since 8.2.0: crash on launch", (COCOA, "8.2.0"), None),
    # "upgraded from X" is the version left (off: 7.2.0, its "from" read as "on")
    ("pattern:upgraded_from", "sentry-android: we upgraded from 7.2.0 and are now on 7.4.1, the ANRs still happen",
     (JAVA, "7.4.1"), None),
    # "now on X" says it is the customer's (off: 7.2.0, the first of two unmarked numbers)
    ("pattern:version_cue", "sentry-android: we upgraded from 7.2.0 and are now on 7.4.1, the ANRs still happen",
     (JAVA, "7.4.1"), None),
    # "upgraded from 7.2.0 to": an upgrade of the SDK itself, not of something named "from 7.2.0" (off: 7.2.0)
    ("words:generic_upgrade_object", "sentry-java: we upgraded from 7.2.0 to 7.4.1 and the ANRs still happen",
     (JAVA, "7.4.1"), None),
    # "sentry-ruby gem 5.18.0": the gem's version, not Puma's (off: 6.4.2)
    ("words:sdk_words", "Puma 6.4.2 with the sentry-ruby gem 5.18.0: Sidekiq jobs are reported twice",
     (RUBY, "5.18.0"), None),
    # "gem 5.18.0" with the SDK named earlier (off: Puma's 6.4.2)
    ("pattern:sdk_word_before", "sentry-ruby: Puma 6.4.2, gem 5.18.0. Sidekiq jobs are reported twice",
     (RUBY, "5.18.0"), None),
    # "Mobile SDK" names no other SDK (off: an unknown "Sentry Mobile SDK", no repository)
    ("words:not_a_name", "Sentry Mobile SDK 8.20.0 crashes on iOS at launch", (COCOA, "8.20.0"), None),
    # "Running" leads in to the SDK phrase (off: the problem reads "Running celery spans are missing")
    ("words:lead_in", "Running sentry-python 2.3.1, celery spans are missing", (PYTHON, "2.3.1"),
     "celery spans are missing"),
    # what works is the customer's control case, not the symptom (off: "Sync workers are fine." joins the problem)
    ("pattern:works_here",
     "sentry-python 2.3.1: Flask app on gunicorn with -k gevent. Errors only show up in Sentry minutes later. "
     "Sync workers are fine.", (PYTHON, "2.3.1"), "Flask app on gunicorn with -k gevent. Errors only show up in "
     "Sentry minutes later."),
    # … a clause of it too (off: "masking works everywhere else" stays)
    ("pattern:works_here", "sentry-cocoa 9.1.0: in iOS session replays, anything inside a ScrollView is visible in "
     "clear text, masking works everywhere else.", (COCOA, "9.1.0"),
     "in iOS session replays, anything inside a ScrollView is visible in clear text"),
    # "Has this been addressed in a newer version?" asks, it describes nothing (off: its words join the problem)
    ("words:question_noise",
     "sentry-python 2.3.1: celery spans are missing. Has this been addressed in a newer version?",
     (PYTHON, "2.3.1"), "celery spans are missing."),
    # what else goes wrong because of it is no part of the failure (off: "the breadcrumbs are not sent either" stays,
    # and a fix of sending breadcrumbs matches it; near-dartplugin-already-fixed-missing-web-build)
    ("pattern:knock_on", "sentry-python 2.3.1: the celery worker crashes at start, so the breadcrumbs are not sent "
     "either.", (PYTHON, "2.3.1"), "the celery worker crashes at start."),
]
IDS = [entry for entry, *_ in READINGS]

# A cached repository named by its distinctive part or one-word name only where the message uses it as a package's
# name (tests/test_package_names.py): the entries of that rule, each with a message over made-up cached repositories.
CACHED = ["acme/widget-sdk", "acme/gizmo-py", "acme/gizmo-go"]
PACKAGE_READINGS = [
    # "widget client": the package, not the word (off: no SDK named, the version only)
    ("pattern:package_named_after", "Our widget client flickers on rotation (we're on 1.2.0)", "acme/widget-sdk"),
    # after an install command (off: no SDK named)
    ("pattern:package_named_before", "After pip install widget the screen flickers on rotation, 1.2.0",
     "acme/widget-sdk"),
    # the label the message starts with (off, either half: no SDK named)
    ("pattern:package_label_before", "widget: flickers on rotation since 1.2.0", "acme/widget-sdk"),
    ("pattern:package_label_after", "- widget: flickers on rotation since 1.2.0", "acme/widget-sdk"),
    # "gizmo" is gizmo-py's as much as gizmo-go's: WIF asks which (off: "py" kept, so "gizmo" is gizmo-go's alone)
    ("words:name_affixes", "Customer on gizmo 1.0.0: crash on start", None),
]


@pytest.fixture(autouse=True)
def _packaged_lexicon() -> Iterator[None]:
    lexicon.use(None)
    yield
    lexicon.use(None)


def _reading(message: str) -> tuple[tuple[str | None, str | None], str]:
    request = extract(message, REGISTRY)
    return (request.repo, request.version), request.problem


def _switched_off(entry: str) -> dict:
    """The lexicon with `entry` off, as bench/ablate.py switches it: an empty word list, a pattern matching nothing."""
    kind, name = entry.split(":", 1)
    tables = lexicon.data()
    if kind == "words":
        tables["words"][name] = []
    else:
        tables["pattern"][name]["re"] = "(?!)"
    return tables


@pytest.mark.parametrize(("entry", "message", "read", "problem"), READINGS, ids=IDS)
def test_a_message_is_read_right(entry: str, message: str, read: tuple, problem: str | None) -> None:
    got, got_problem = _reading(message)
    assert got == read
    if problem is not None:
        assert got_problem == problem


@pytest.mark.parametrize(("entry", "message", "read", "problem"), READINGS, ids=IDS)
def test_without_its_entry_the_message_is_read_wrong(entry: str, message: str, read: tuple,
                                                     problem: str | None) -> None:
    lexicon.use(_switched_off(entry))
    got, got_problem = _reading(message)
    assert got != read or (problem is not None and got_problem != problem), f"{entry} changes nothing here"


@pytest.mark.parametrize("message", [
    "sentry-java: we had to upgrade to 7.4.1 and the ANRs still happen",
    "sentry-java: we upgraded to 7.4.1 and the ANRs still happen",
    "sentry-java: after we upgrade to 7.4.1 the ANRs happen",
])
def test_an_upgrade_done_is_not_a_proposal(message: str) -> None:
    assert _reading(message)[0] == (JAVA, "7.4.1")


def _cached_registry() -> Registry:
    """The packaged registry plus cached repositories no registry declares (built under the lexicon in use)."""
    registry = load_registry()
    registry.add_repositories(CACHED, distinctive=distinctive_part)
    return registry


def _package_reading(message: str) -> tuple[str | None, str | None]:
    request = extract(message, _cached_registry())
    return request.repo, request.sdk


@pytest.mark.parametrize(("entry", "message", "repo"), PACKAGE_READINGS, ids=[e for e, *_ in PACKAGE_READINGS])
def test_a_package_name_is_read_right_and_wrong_without_its_entry(entry: str, message: str, repo: str | None) -> None:
    right = _package_reading(message)
    assert right[0] == repo and right[1] is not None  # an SDK named: its repository, or (shared) WIF asks which
    lexicon.use(_switched_off(entry))
    assert _package_reading(message) != right, f"{entry} changes nothing here"


def test_a_python_requirement_names_its_sdk_and_keeps_its_extras(tmp_path) -> None:
    """"`openai[aiohttp]==2.50.0` … the urllib3 pulled in for Bedrock": the version follows the requirement of the
    SDK, its extras between (read without them, the other package, known to the operator's registry, was the SDK);
    the extras name integrations in use, so they stay in the problem while the SDK phrase goes."""
    data = json.loads(resources.files("indexer").joinpath("data/registry.json").read_text())
    data["repositories"]["urllib3/urllib3"] = {"aliases": ["urllib3"]}
    (tmp_path / "registry.json").write_text(json.dumps(data))
    registry = load_registry(tmp_path / "registry.json")
    request = extract("Security scan on a service using `openai[aiohttp]==2.50.0`: pip-audit flags the resolved "
                      "aiohttp, and the urllib3 pulled in for Bedrock too.", registry)
    assert (request.repo, request.version) == ("openai/openai-python", "2.50.0")
    assert _reading("Using sentry-sdk[flask, celery]==2.3.1: celery spans are missing") == (
        (PYTHON, "2.3.1"), "flask, celery celery spans are missing")


def test_a_name_written_as_a_requirement_is_a_packages_name(tmp_path) -> None:
    """With aiohttp known to the operator's registry too, "`openai[aiohttp]==2.50.0` … the resolved aiohttp (3.13.x)"
    still asks about openai 2.50.0: a name written as a requirement (extras, pin) is a package's name, whose version
    is as strong as the one after the package name "aiohttp" and comes first. Without `requirement_after`, "openai"
    counted as a word of the repository's name and aiohttp 3.13.x was read as the customer's SDK and version."""
    data = json.loads(resources.files("indexer").joinpath("data/registry.json").read_text())
    data["repositories"]["urllib3/urllib3"] = {"aliases": ["urllib3"]}
    data["repositories"]["aio-libs/aiohttp"] = {"aliases": ["aiohttp"]}
    (tmp_path / "registry.json").write_text(json.dumps(data))
    message = ("Security scan on a service using `openai[aiohttp]==2.50.0`: pip-audit flags the resolved aiohttp "
               "(3.13.x), and the urllib3 pulled in for Bedrock too. Does a later openai release raise the minimums?")
    request = extract(message, load_registry(tmp_path / "registry.json"))
    assert (request.repo, request.version) == ("openai/openai-python", "2.50.0")
    lexicon.use(_switched_off("pattern:requirement_after"))
    request = extract(message, load_registry(tmp_path / "registry.json"))
    assert (request.repo, request.version) != ("openai/openai-python", "2.50.0")


def test_a_url_is_blanked_without_the_quote_or_full_stop_after_it() -> None:
    """A URL inside quotes or backticks ends before them: blanking "…/items')`" and "…/items`." with the URL left
    the problem with unpaired backticks and no sentence break, so the next sentence ran into the error message."""
    message = ("sentry-python 2.3.1: with the HTTP integration, `requests.get('https://api.example.com/items')` raises "
               "`InvalidURL: Failed to parse https://api.example.com:None/items`. Adding the port helps.")
    assert _reading(message)[1] == ("with the HTTP integration, `requests.get(' ')` raises `InvalidURL: Failed to "
                                    "parse `. Adding the port helps.")


def test_a_clause_saying_what_works_stays_when_it_complains_too() -> None:
    """"Building without withSentryConfig works." says what is missing for it to work: it is part of the symptom."""
    assert _reading("@sentry/nextjs 10.46.0: with withSentryConfig, prod pages are broken. Building without "
                    "withSentryConfig works.")[1] == ("with withSentryConfig, prod pages are broken. Building without "
                                                      "withSentryConfig works.")


def test_a_consequence_that_is_the_symptom_stays_in_the_problem() -> None:
    """`pattern.knock_on` drops only what also goes wrong ("… either", "too", "as well"): ", so events are lost" is
    what the customer sees, and stays."""
    assert _reading("sentry-python 2.3.1: the transport times out, so events are lost.")[1] == \
        "the transport times out, so events are lost."


def _knock_on_single_branch() -> re.Pattern[str]:
    """`pattern.knock_on` as it was before its second branch (", so" up to the last "either"/"too"/"as well" of the
    sentence, nothing else): the reference its two-branch form must remove exactly as."""
    two_branch = lexicon.pattern("knock_on")
    single = two_branch.pattern.replace(r"|[^.;!?]*)", ")")
    assert single != two_branch.pattern
    return re.compile(single, two_branch.flags)


# Pieces of a message that exercise `pattern.knock_on`: several ", so" per sentence, its words before and after them
# (in any case, as parts of longer words), sentence ends, line breaks. Keywords are read from the lexicon's own regex.
_KNOCK_ON_PIECES = [", so ", ",  so\n", ", so", ",so ", " SO ", "so ", ", ", ",", " ", "\n", "a", "x", "sox",
                    ".", ";", "!", "?", "either", "Either", "too", "TOO", "tool", "as well", "as  well", "wellas"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_KNOCK_ON_PIECES), max_size=40))
def test_knock_on_removes_what_its_single_branch_form_removed(pieces: list[str]) -> None:
    """The second branch (the rest of a clause after a ", so" that is no knock-on, kept) only stops the scan from
    restarting at every later ", so" of the sentence (quadratic: 20,000 characters of ", so a" took 1.5 s): what it
    removes is what the single-branch pattern removed."""
    text = "".join(pieces)
    assert lexicon.pattern("knock_on").sub(_without_knock_on, text) == _knock_on_single_branch().sub("", text)


def test_a_long_run_of_so_clauses_reads_as_before() -> None:
    """The message that was quadratic reads as with the single-branch pattern: the ", so a" clauses with nothing after
    them stay; a knock-on after a ", so" that is none still goes."""
    assert _reading("sentry-python 1.2.0 crashes" + ", so a" * 3300)[1].startswith("crashes, so a, so a, so a")
    assert _reading("sentry-python 1.2.0 crashes" + ", so a" * 3300 + " too")[1] == "crashes"
    first = "the worker stops, so a b c, so spans are lost too."
    assert _knock_on_single_branch().sub("", first) == "the worker stops."
    assert _reading(f"sentry-python 1.2.0: {first}")[1] == "the worker stops."
