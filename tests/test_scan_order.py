"""The order the scan judges a batch's relevant entries in (scan_release_notes._oldest_first)."""

from __future__ import annotations

from wif_action.models import Entry, Release, RelevantEntry
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
