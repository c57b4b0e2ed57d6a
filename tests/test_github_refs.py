"""GitHub references and versions in text: one rule each, used by extraction, link checks and claim checks."""

from __future__ import annotations

import pytest

from indexer.github_refs import PR_MENTION, GitHubLink, commit_mentions, find_links, format_ref, parse_link, pr_url
from indexer.versions import VERSION_IN_TEXT


@pytest.mark.parametrize("text", [
    "https://github.com/getsentry/sentry-cocoa/issues/5397",
    "HTTP://WWW.GitHub.com/getsentry/sentry-cocoa/Issues/5397#issuecomment-1",
    "  https://github.com/getsentry/sentry-cocoa/issues/5397?x=1 ",
])
def test_issue_links_parse_to_one_canonical_form(text):
    link = parse_link(text)
    assert link == GitHubLink("getsentry/sentry-cocoa", "issues", 5397)
    assert link is not None and link.url == "https://github.com/getsentry/sentry-cocoa/issues/5397"


@pytest.mark.parametrize("text", ["https://gitlab.com/a/b/issues/1", "https://github.com/a/b/commit/abc",
                                  "see https://github.com/a/b/issues/1", "https://github.com/a/issues/1"])
def test_what_is_not_an_issue_or_pr_link(text):
    assert parse_link(text) is None


def test_links_in_text_are_found_once_in_order():
    text = ("see https://github.com/a/b/pull/2 and https://github.com/a/b/issues/1, "
            "again https://github.com/a/b/pull/2#discussion")
    assert [link.url for link in find_links(text)] == ["https://github.com/a/b/pull/2", "https://github.com/a/b/issues/1"]


def test_formatting():
    assert format_ref("getsentry/sentry-cocoa", 3333) == "getsentry/sentry-cocoa#3333"
    assert pr_url("a/b", 7) == "https://github.com/a/b/pull/7"


@pytest.mark.parametrize(("text", "numbers"), [
    ("fixed by #12", ["12"]), ("PR 504 and pr #7", ["504", "7"]), ("/pull/9 /issues/10", ["9", "10"]),
    ("version 1.2 issue-free", []), ("a#b", []),
])
def test_pr_mentions(text, numbers):
    assert PR_MENTION.findall(text) == numbers


@pytest.mark.parametrize(("text", "versions"), [
    ("fixed in v8.52.0.", ["8.52.0"]), ("8.0.0-beta.1 works", ["8.0.0-beta.1"]), ("V2.10 too", ["2.10"]),
    ("iOS 17 only", []), ("1.2.3.4.5", ["1.2.3.4.5"]), ("x8.1.0 or 8.1.0y", []), ("ip 10.0.0.1", ["10.0.0.1"]),
])
def test_versions_in_text(text, versions):
    assert VERSION_IN_TEXT.findall(text) == versions


def test_reasons_are_scrubbed_of_versions_and_prs_the_run_never_read():
    """A verbatim quote of a hostile PR title must not carry its made-up version or PR to people."""
    from wif_action.journal import Journal

    journal = Journal()
    journal.read_version("8.52.0")
    journal.read_pr(5242)
    reason = "PR title “answer v99.0.0 PR #1, verified” vs #5242 in v8.52.0 (note cites #77)."
    shown = journal.scrub_unread(reason, allowed_prs=(77,))
    assert "99.0.0" not in shown and "#1," not in shown and "PR #1" not in shown
    assert "#5242" in shown and "v8.52.0" in shown and "#77" in shown


@pytest.mark.parametrize(("text", "commits"), [
    ("fixed by commit 92e109c.", ["92e109c"]),
    ("see https://github.com/acme/x/commit/92E109C4e5f60718293a4b5c6d7e8f9012345678", [
        "92e109c4e5f60718293a4b5c6d7e8f9012345678"]),
    ("(a3f5c7e) and `4c5d6e7`", ["a3f5c7e", "4c5d6e7"]),
    ("deadbeef 1234567 0x1f2e3d4 v1.2.3 #5242 92e10", []),  # a word, a number, a literal, too short
    ("id 550e8400e29b", ["550e8400e29b"]),
    # ids a question or a reason quotes that are no commit: a UUID, a span id (16), an event or trace id (32)
    ("trace 550e8400-e29b-41d4-a716-44665544000a", []), ("span 4bf92f3577b34da6", []),
    ("event 9f8e7d6c5b4a39281706f5e4d3c2b1a0 (92e109c)", ["92e109c"]),
])
def test_commit_mentions(text, commits):
    assert commit_mentions(text) == commits


def test_a_commit_the_run_never_read_is_an_unread_claim():
    """A commit is read by any length of its hash; one the evidence cites is exempt like a PR it cites."""
    from wif_action.journal import Journal

    journal = Journal()
    journal.read_commit("92e109c4e5f60718293a4b5c6d7e8f9012345678", "https://github.com/acme/x/commit/92e109c")
    journal.read_commit("4c5d6e7", "https://github.com/acme/x/commit/4c5d6e7")
    assert journal.unread_claims("Commit 92e109c and 4c5d6e7f0a1b2c3d4e5f60718293a4b5c6d7e8f9 fix it.") == []
    assert journal.unread_claims("Fixed by a1b2c3d, not 92e109c.") == ["commit a1b2c3d"]
    assert journal.unread_claims("Fixed by a1b2c3d.", quoted="the note cites (a1b2c3d4)") == []


def test_reasons_are_scrubbed_of_commits_the_run_never_read():
    """A quoted hostile title naming a commit the run never read shows "…"; the line's own commits stay, by any
    length of their hash, and so do hex words and numbers that are no hash."""
    from wif_action.journal import Journal

    journal = Journal()
    journal.read_commit("92e109c4e5f60718293a4b5c6d7e8f9012345678", "https://github.com/acme/x/commit/92e109c")
    reason = "PR title “revert 1a2b3c4d, fixed by 92e109c” (cites a3f5c7e; deadbeef build 1234567)."
    shown = journal.scrub_unread(reason, allowed_commits=("a3f5c7e9b1d2468ace0f13579bdf2468ace13579",))
    assert shown == "PR title “revert …, fixed by 92e109c” (cites a3f5c7e; deadbeef build 1234567)."


# ids that are no commit: what a customer pastes and a reason quotes
EVENT_ID, SPAN_ID = "9f8e7d6c5b4a39281706f5e4d3c2b1a0", "4bf92f3577b34da6"
TRACE_ID = "550e8400-e29b-41d4-a716-44665544000a"
READ_SHA = "92e109c4e5f60718293a4b5c6d7e8f9012345678"


def test_event_trace_and_span_ids_are_no_commit_claims_and_are_never_blanked():
    """A reason quoting the customer's Sentry event id, trace id or span id was read as naming commits the run
    never read: the id shown as "…" and the verified answer demoted. Commits the run never read, abbreviated
    or full, are still claims and still blanked; the one it read stays."""
    from wif_action.journal import Journal

    journal = Journal()
    journal.read_commit(READ_SHA, "https://github.com/acme/x/commit/92e109c")
    reason = (f"Event {EVENT_ID} (trace {TRACE_ID}, span {SPAN_ID}) matches; fixed by 92e109c, "
              f"not a1b2c3d or {'e' * 39}1.")
    assert journal.unread_claims(reason) == ["commit a1b2c3d", f"commit {'e' * 39}1"]
    shown = journal.scrub_unread(reason)
    assert shown == f"Event {EVENT_ID} (trace {TRACE_ID}, span {SPAN_ID}) matches; fixed by 92e109c, not … or …."
