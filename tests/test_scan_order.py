"""The order the scan judges a batch's relevant entries in (scan_release_notes._oldest_first)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import build_cache
from tests.fakes.github_server import FakeGitHub
from tests.workflow_helpers import ask
from wif_action.models import AskInput, Entry, Release, RelevantEntry
from wif_action.subtasks.scan_release_notes import _oldest_first


def release(tag: str, key: str) -> Release:
    return Release(id=int(key), repo="o/r", tag=tag, version=tag, version_key=key)


def test_oldest_release_first_and_within_a_release_the_most_relevant_first():
    """Release order decides (the first confirmed fix is the earliest); inside one release the judge's most
    relevant entry comes first, so the MEDIUMs of a release (the Unreleased notes: one pseudo-release) are listed
    strongest first; equal relevance keeps the notes' order."""
    old, new = release("1.0.0", "1"), release("2.0.0", "2")
    entries = [Entry(id=n, release=r, section="Fixes", text=f"line {n}", prs=[n], position=n)
               for n, r in ((1, old), (2, old), (3, new), (4, new), (5, new))]
    by_id = {entry.id: entry for entry in entries}
    relevant = [RelevantEntry(entry=by_id[n], pr=n, relevance=score)
                for n, score in ((5, 2.0), (4, 9.0), (3, 2.0), (1, 1.0), (2, 8.0))]
    assert [item.entry.id for item in _oldest_first(relevant, by_id)] == [2, 1, 4, 3, 5]


def test_a_pr_a_later_release_repeats_shipped_in_the_oldest_release_of_the_batch():
    """sentry-xamarin 1.3.2 "Fix null data on breadcrumb. (#90)", repeated better worded in 1.4.0 "Ignore null data
    on Internal breadcrumbs (#90)": whichever line the judge picks, the fix is in 1.3.2."""
    from wif_action.subtasks.scan_release_notes import _first_shipped

    first, later = release("1.3.2", "1"), release("1.4.0", "2")
    entries = [Entry(id=1, release=first, section="Fixes", text="Fix null data on breadcrumb.", prs=[90]),
               Entry(id=2, release=later, section="Fixes", text="Ignore null data on Internal breadcrumbs", prs=[90]),
               Entry(id=3, release=later, section="Fixes", text="Fix something else", prs=[91])]
    assert _first_shipped(entries) == {("o/r", 90): first, ("o/r", 91): later}


def test_the_answer_names_the_oldest_release_of_the_batch_shipping_the_pr(tmp_path: Path) -> None:
    """Through the workflow: the better worded 1.2.0 line repeating PR #90 is the line the judge picks, and the answer
    still names 1.1.0, the release that first shipped #90 (`_first_shipped` as the scan uses it)."""
    notes = "### Fixes\n\n- {text} (#90)\n"
    releases = [{"tag_name": "1.0.0", "body": "- Initial"},
                {"tag_name": "1.1.0", "body": notes.format(text="Fix null data on breadcrumb.")},
                {"tag_name": "1.2.0", "body": notes.format(text="Ignore null data on internal breadcrumbs")}]
    pulls = [{"number": 90, "title": "Ignore null data on internal breadcrumbs", "merged": True}]
    with FakeGitHub() as github:
        github.add_repo("acme/crumbs", releases=list(reversed(releases)), pulls=pulls)
        db = tmp_path / "cache.db"
        build_cache(db, github, ["acme/crumbs"], pulls="recent", max_pulls=None)
        answer, _ = ask(db, github.url, AskInput(repo="acme/crumbs", version="1.0.0",
                                                 problem="Internal breadcrumbs with null data crash the app"))
    assert answer.candidates and (answer.candidates[0].pr, answer.candidates[0].version) == (90, "1.1.0"), \
        (answer.message, answer.trace)
