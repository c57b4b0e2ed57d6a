"""Engine-independent limits on a HIGH: a change the opposite way of what the customer asks
(wif_action/direction.py), a dependency update or a pointer to a fix in another repository."""

from __future__ import annotations

import pytest

from tests.conftest import build_cache
from tests.fakes.github_server import FakeGitHub
from tests.workflow_helpers import ask, keyword_responder
from wif_action.direction import change_direction, complaints, opposite, without_conditions
from wif_action.models import AskInput
from wif_action.problem_kind import asked_in_own_words, wants_functionality

FLICKERS = "The gizmo flickers when the screen rotates."  # a broken behaviour the one-line tests ask about


@pytest.mark.parametrize(("headline", "direction"), [
    ("fix(core): Send `internal_error` as span status", "adds"),
    ("Add missing context for watchdog termination events", "adds"),
    ("Don't report network errors to Sentry", "removes"),
    ("fix(hono): Do not capture 3xx and 4xx errors", "removes"),
    ("Remove user attributes from logs", "removes"),
    ("Fix crash when the scope is closed", None),
    ("Mark redirect server actions as ok", None),
])
def test_the_change_direction_is_read_from_the_leading_verb(headline, direction):
    assert change_direction(headline) == direction


@pytest.mark.parametrize(("headline", "direction"), [
    # a removing verb before an action ("-ing") stops that action: it goes against the action's direction …
    ("client: avoid serializing null optional bodies", None),  # a conversion not done removes no null
    ("Avoid parsing incomplete structured output", None),
    ("Stop sending spans for health checks", "removes"),
    ("fix: Stop suppressing exception chains", "adds"),
    ("Avoid dropping events on shutdown", "adds"),
    # … and before a thing, it removes the thing ("string" is no "-ing" form of a verb)
    ("Avoid duplicate spans", "removes"),
    ("fix: avoid string copies", "removes"),
])
def test_a_removing_verb_before_an_action_goes_against_that_action(headline, direction):
    """"avoid serializing null bodies" is not doing a conversion, not removing null (openai-node's null-body fix
    was held at MEDIUM as "it removes null, and the problem is that null is missing")."""
    assert change_direction(headline) == direction


def test_avoiding_a_conversion_is_no_change_against_a_missing_thing():
    problem = complaints("A request with an empty (null) body goes out as the text null.")
    assert opposite("avoid serializing null optional bodies", problem) is None
    assert opposite("remove null optional bodies", problem) is not None


@pytest.mark.parametrize(("headline", "problem", "against"), [
    ("Send `internal_error` as span status", "Spans are recorded as internal_error, inflating the failure rate.",
     True),
    ("Remove user attributes from logs", "User attributes are missing from logs.", True),
    ("Add missing context for watchdog termination events", "Watchdog termination events have empty tags.", False),
    ("Don't report network errors", "Network errors show up as Sentry issues.", False),
    ("Skip UI crumbs when the sender is nil", "The app crashes when the sender is missing.", False),  # acts on crumbs
    ("Send `internal_error` as span status", "The span status internal_error is missing.", False),
    # "still <verb>": it goes on where it should have stopped, so it is there (lexicon `complains_persists`)
    ("Disable native if DSN is not provided", "The DSN is left empty, but the native SDK still initialises.", False),
    ("Send sessions on every app start", "Sessions are still sent after the client is closed.", True),
    # a clause saying when the problem shows is no complaint (lexicon `condition_clause`)
    ("Ignore null data on internal breadcrumbs",
     "The SDK throws a NullReferenceException while adding its internal breadcrumbs when a previous breadcrumb has "
     "no data.", False),
    # … but a clause a conjunction opens may hold the complaint itself
    ("Ignore crash events on iOS", "Android crashes arrive, but when the iOS build crashes no crash events arrive.",
     True),
    ("Ignore crash events on iOS", "When the iOS build crashes no crash events arrive.", True),
])
def test_a_change_against_the_complaint_is_flagged(headline, problem, against):
    assert (opposite(headline, complaints(problem)) is not None) == against


@pytest.mark.parametrize(("headline", "problem", "why"), [
    ("No longer send spans for health checks", "Spans are no longer sent.",
     "it removes spans, and the problem is that spans is missing"),
    ("Never attach screenshots when the app is in background", "Screenshots are never attached to crashes.",
     "it removes screenshots, and the problem is that screenshots is missing"),
    # the negation is all the two share: the change acts on something else
    ("No longer send transactions for health checks", "Spans are no longer sent.", None),
    ("Do not send transactions for health checks", "Spans are not sent.", None),
])
def test_the_negation_before_the_verb_is_not_what_a_change_acts_on(headline, problem, why):
    """"No longer send spans": what it acts on is "spans", not "longer" (nor "not" of "Do not send …")."""
    assert opposite(headline, complaints(problem)) == why


def test_a_stopword_shared_with_another_sentence_is_not_what_a_change_acts_on():
    """The right fix of the first sentence; the second complains of something missing and shares only "the" with
    the headline, which made it "removes the, and the problem is that the is missing" (capped at MEDIUM)."""
    problem = complaints("Health check requests are recorded as transactions. The quota runs out and the real "
                         "traffic is missing.")
    assert opposite("Stop recording the health check requests as transactions", problem) is None
    assert opposite("Remove the user from health check requests", complaints("The user is missing.")) is not None


def test_an_opposite_change_is_not_the_high_answer(tmp_path):
    notes = "### Fixes\n\n- {text} (#{pr})\n"
    releases = [{"tag_name": "1.2.0", "body": notes.format(text="Stop recording redirects as internal_error", pr=12)},
                {"tag_name": "1.1.0", "body": notes.format(text="Send internal_error as the status of redirects",
                                                           pr=11)},
                {"tag_name": "1.0.0", "body": "- Initial"}]
    pulls = [{"number": 11, "title": "Send internal_error as the status of redirects", "merged": True},
             {"number": 12, "title": "Stop recording redirects as internal_error", "merged": True}]
    with FakeGitHub() as github:
        github.add_repo("acme/spans", releases=releases, pulls=pulls)
        db = tmp_path / "cache.db"
        build_cache(db, github, ["acme/spans"], pulls="recent", max_pulls=None)
        answer, _ = ask(db, github.url, AskInput(repo="acme/spans", version="1.0.0", problem=(
            "Every redirect is recorded as internal_error in the traces, inflating the failure rate of redirects.")))
    assert (answer.outcome.value, answer.candidates[0].version, answer.candidates[0].pr) == ("high", "1.2.0", 12)
    earlier = [line for line in answer.trace if line.startswith("PR #11")]
    assert earlier and "medium" in earlier[0] and "it adds internal_error" in earlier[0], answer.trace


@pytest.mark.parametrize(("line", "why"), [
    ("Bump `libgizmo` to v2.3.1", "only a dependency update"),
    ("chore(deps): update libgizmo from 2.3.0 to 2.3.1", "only a dependency update"),
    ("Gizmo flicker on rotation, fixed upstream in acme/libgizmo#44", "the fix it points at is in acme/libgizmo"),
])
@pytest.mark.slow
def test_an_llm_high_on_a_dependency_update_or_an_upstream_reference_is_medium(tmp_path, openai_fake, line, why):
    """Whatever the engine says, such a line has its evidence elsewhere: at most MEDIUM, saying why."""
    openai_fake.responder = keyword_responder("gizmo")
    answer = _answer_on_one_line(tmp_path, openai_fake.url, "Fixes", line, FLICKERS)
    assert answer.candidates and answer.candidates[0].pr == 11
    assert answer.candidates[0].confidence.value == "medium" and why in answer.candidates[0].reason


@pytest.mark.parametrize(("title", "level"), [
    ("ref(rate-limit): handle gizmo rate limiting", "medium"),
    ("refactor: move gizmo rotation into its own module", "medium"),
    ("chore(gizmo): tidy rotation code", "medium"),
    ("fix(gizmo): stop the flicker on rotation", "high"),
    ("Refactor the gizmo so it stops flickering on rotation", "high"),  # words, not a declared commit type
])
def test_an_llm_high_on_a_change_that_declares_no_behaviour_change_is_medium(tmp_path, openai_fake, title, level):
    """A refactor or chore "neither fixes a bug nor adds a feature" by its own type: never the ✓ answer."""
    openai_fake.responder = keyword_responder("gizmo")
    answer = _answer_on_one_line(tmp_path, openai_fake.url, "Fixes", title, FLICKERS)
    top = answer.candidates[0]
    assert (top.pr, top.confidence.value) == (11, level)
    assert (level == "medium") == ("declares no change of behaviour" in top.reason)


@pytest.mark.parametrize(("problem", "level"), [
    ("The gizmo flickers when the screen rotates.", "medium"),  # a broken behaviour: a feature is not its fix
    ("There is no option to keep the gizmo still when the screen rotates.", "high"),  # missing functionality
])
def test_an_llm_high_on_a_feature_entry_is_medium_for_a_broken_behaviour(tmp_path, openai_fake, problem, level):
    """The spec prioritises Fixes; features answer requests for missing functionality only."""
    openai_fake.responder = keyword_responder("gizmo")
    line = "Add a gizmo option to keep it still when the screen rotates"
    answer = _answer_on_one_line(tmp_path, openai_fake.url, "Features", line, problem)
    top = answer.candidates[0]
    assert (top.pr, top.confidence.value, top.objected) == (11, level, level == "medium")
    assert (level == "medium") == ("it adds functionality" in top.reason)


@pytest.mark.parametrize(("problem", "leads"), [
    ("There is no option to keep the gizmo still when the screen rotates.", 12),  # missing: the feature leads
    ("The gizmo flickers when the screen rotates.", 11),  # broken: the fix leads (and the feature is objected)
])
def test_a_feature_leads_the_mediums_of_a_request_for_functionality(tmp_path, openai_fake, problem, leads):
    """The mirror of "prioritize Fixes": for missing functionality the feature that adds it is listed first;
    the fix keeps its level (it may deliver it) and says why it comes second."""
    openai_fake.responder = keyword_responder("gizmo", confidence="medium")
    fix, feature = "Fix gizmo rotation flicker", "Add a gizmo option to keep it still when the screen rotates"
    releases = [{"tag_name": "1.2.0", "body": f"### Features\n\n- {feature} (#12)\n"},
                {"tag_name": "1.1.0", "body": f"### Fixes\n\n- {fix} (#11)\n"},
                {"tag_name": "1.0.0", "body": "- x"}]
    pulls = [{"number": 11, "title": fix, "merged": True}, {"number": 12, "title": feature, "merged": True}]
    with FakeGitHub() as github:
        github.add_repo("acme/app-sdk", releases=releases, pulls=pulls)
        db = tmp_path / "cache.db"
        build_cache(db, github, ["acme/app-sdk"], pulls="recent", max_pulls=None)
        answer, _ = ask(db, github.url, AskInput(repo="acme/app-sdk", version="1.0.0", problem=problem),
                        engine="openai", openai_url=openai_fake.url)
    assert answer.outcome.value == "medium" and [c.confidence.value for c in answer.candidates] == ["medium"] * 2
    assert f"includes changes that may address this ([PR #{leads}]" in answer.message
    second = next(c for c in answer.candidates if c.pr != leads)
    assert second.objected and ("asks for functionality" in second.reason) == (leads == 12)


@pytest.mark.parametrize(("text", "wanted"), [
    ("crashedLastRun is false both when it did not crash and when it is unknown, so the app cannot tell them apart",
     True),
    ("There is no option to drop transactions by name", True),
    ("Is there an API that gives the last run's status?", True),
    ("Can a newer version take a callable that returns the current key?", True),
    ("The app crashes when the screen rotates", False),
    ("Events are sent twice since 8.2.0", False),
    ("The customer wants to know whether the crash on start is fixed", False),  # asks about a fix
    ("They would like to confirm the leak is gone in 8.3.0", False),
    ("Is it possible that the SDK drops these events?", False),
    ("The customer wants to stop sending health-check transactions", True),
    ("Is it possible to set a different DSN per thread?", True),
    ("The customer does not know whether the fix shipped", False),
    # what the tool printed, quoted, and the condition the bug shows under, are no request (asked_in_own_words)
    ('The upload failed with "This version of Sentry does not support artifact bundles"; the org was misspelled',
     False),
    ("The upload tool writes its progress lines to the error stream when there is no terminal", False),
    ("On platforms where screenshots are not supported, the log fills with warnings", False),
    ("The app is not supported on watchOS, is there a way to build it?", True),
    ("When will there be support for structured logs?", True),  # "when will" asks, it sets no condition
    # an option set to a value is configuration, an option to do something is functionality
    ("Setting the release option to null has no effect", False),
    ("There should be an option to disable the integration", True),
    # a release asked for what it ships or adds asks for functionality (pattern.ships_asked); what one shipped is not
    ("The worker fails on start. Is there a version that ships something suitable for workers?", True),
    ("Does a later release add it to the typings?", True),
    ("The version that ships with Xcode 16 crashes on launch", False),
    ("Is there a release that fixes this?", False),
    # a clause conceding how things are is no request (pattern.concession_clause)
    ("Each GET call logs a warning even though there is no body for a GET. Fixed later?", False),
    ("Reports hold the error twice, although the SDK only sends it once in production", False),
    ("Although the proxy works, there is no option to keep the host header", True),
])
def test_a_request_for_missing_functionality_is_told_from_a_broken_behaviour(text, wanted):
    assert wants_functionality(text) is wanted


def test_an_apostrophe_opens_no_quoted_span():
    """Only a quoted span is left out of the customer's own words, not the text between an apostrophe and a quote."""
    assert asked_in_own_words("The SDK's types only accept the 'in-memory' value").split() == \
        ["The", "SDK's", "types", "only", "accept", "the", "value"]


def test_a_complaint_after_a_condition_clause_is_read():
    """A when-clause after the main clause ends before "and …": what follows is a complaint of its own ("The app
    freezes when the user opens settings and no events are sent" complains that events are missing), and dropped with
    the condition it never objected to a change removing them."""
    problem = "The app freezes when the user opens settings and no events are sent"
    assert "no events are sent" in without_conditions(problem)
    assert "user opens settings" not in without_conditions(problem)
    (complaint,) = complaints(problem)
    assert complaint.absent and "events" in complaint.words
    assert opposite("Stop sending events from the settings screen", complaints(problem)) is not None


@pytest.mark.parametrize(("problem", "objected"), [
    ("There is no option to keep the gizmo proxy from logging client cancellations.", True),
    # the same ask after a failure the lexicon knows (a 5xx response, `symptom` 5xx says_what): a broken behaviour
    ("The gizmo proxy answers 502 when a client cancels. Can a newer version tell client cancellations apart?", False),
])
def test_a_request_that_names_what_failed_is_answered_by_its_fix(tmp_path, openai_fake, problem, objected):
    """A request for functionality lists a fix after the features (`a_feature_for_missing_functionality`) — unless
    it also names what failed (`objections._names_what_failed`): then the fix answers it as well, unobjected."""
    openai_fake.responder = keyword_responder("gizmo", confidence="medium")
    fix = "Avoid gizmo proxy errors for client cancellations"
    answer = _answer_on_one_line(tmp_path, openai_fake.url, "Fixes", fix, problem)
    (top,) = answer.candidates
    assert (top.pr, top.confidence.value, top.objected) == (11, "medium", objected)
    assert ("asks for functionality" in top.reason) == objected


def _answer_on_one_line(tmp_path, openai_url: str, section: str, line: str, problem: str):
    """The OpenAI engine's answer to `problem` over one release 1.1.0 whose `section` holds `line` (PR #11), asked
    from 1.0.0: the setup the LLM-level tests share."""
    releases = [{"tag_name": "1.1.0", "body": f"### {section}\n\n- {line} (#11)\n"},
                {"tag_name": "1.0.0", "body": "- x"}]
    with FakeGitHub() as github:
        github.add_repo("acme/app-sdk", releases=releases, pulls=[{"number": 11, "title": line, "merged": True}])
        db = tmp_path / "cache.db"
        build_cache(db, github, ["acme/app-sdk"], pulls="recent", max_pulls=None)
        answer, _ = ask(db, github.url, AskInput(repo="acme/app-sdk", version="1.0.0", problem=problem),
                        engine="openai", openai_url=openai_url)
    return answer
