"""`/wif` delivery on a GitHub issue: 👀 on the command, one answer comment edited in place, a final reaction.

Why one marked comment: a workflow re-run or a duplicate event must edit the
earlier answer, not pile up comments. The hidden marker names the triggering
comment, so each `/wif` command owns exactly one answer.

Reactions: GitHub offers only +1, -1, laugh, confused, heart, hooray, rocket
and eyes, so ✅ (answered with a fix) is `rocket`, ✓ fixed on the default branch but not released yet (a
confident `unreleased` answer) is `hooray`, and ❓ (deferred, or needs clarification) is `confused`.
"""

from __future__ import annotations

from collections.abc import Callable

from wif_action.delivery.github_event import Trigger
from wif_action.delivery.sanitize import sanitize
from wif_action.delivery.throttle import ThrottledLines
from wif_action.models import Confidence, Outcome
from wif_action.ports import ToolError
from wif_action.tools.github_issues import GitHubWriteError, IssueThread

SEEN, FIXED, UNRELEASED, DEFERRED = "eyes", "rocket", "hooray", "confused"
Skip = Callable[[str, str], None]


def progress_body(marker: str, lines: list[str]) -> str:
    return f"{marker}\n⏳ **WIF is looking into this**\n\n" + "\n".join(f"- {sanitize(line)}" for line in lines)


def reaction(outcome: Outcome, lead: Confidence | None) -> str:
    """🚀 fixed in a release; 🎉 fixed on the default branch, not released yet (a confident `unreleased`
    answer: nothing to defer, the customer waits for the next release); 😕 deferred to the maintainers (a
    MEDIUM, published or not, no result, too old, already latest, a question back, a failure)."""
    if outcome == Outcome.HIGH:
        return FIXED
    if outcome == Outcome.UNRELEASED and lead == Confidence.HIGH:
        return UNRELEASED
    return DEFERRED


class CommentProgress:
    """A Progress sink that edits the answer comment with each checkpoint (throttled)."""

    def __init__(self, delivery: CommentDelivery, interval: float = 1.0):
        self._delivery = delivery
        self._lines = ThrottledLines(self._push, interval)

    def checkpoint(self, text: str) -> None:
        self._lines.add(text)

    def finish(self, text: str) -> None:
        """Nothing to flush: the answer replaces the progress right after."""

    def _push(self, lines: list[str]) -> None:
        self._delivery.edit(progress_body(self._delivery.trigger.marker, lines))


class CommentDelivery:
    """The answer comment for one `/wif` command."""

    def __init__(self, thread: IssueThread, trigger: Trigger, on_skip: Skip, interval: float = 1.0):
        self.thread, self.trigger, self._on_skip, self._interval = thread, trigger, on_skip, interval
        self.comment_id: int | None = None

    def start(self) -> None:
        """React 👀 and create (or, on a re-run, find) the answer comment showing "Analyzing…"."""
        self._react(SEEN)
        try:
            self.comment_id = self.thread.find_comment(self.trigger.marker)
            body = progress_body(self.trigger.marker, ["Analyzing…"])
            if self.comment_id is None:
                self.comment_id = self.thread.create(body)
            else:
                self.thread.edit(self.comment_id, body)
        except ToolError as error:
            self._on_skip("GitHub progress comment", error.reason)

    def progress(self) -> CommentProgress | None:
        return CommentProgress(self, self._interval) if self.comment_id else None

    def edit(self, body: str) -> None:
        try:
            if self.comment_id:
                self.thread.edit(self.comment_id, body)
        except ToolError as error:
            self._on_skip("GitHub progress comment", error.reason)
            raise

    def post_answer(self, markdown: str, outcome: Outcome, lead: Confidence | None = None) -> bool:
        """Put the answer in the marked comment (creating it if the start failed), then the reaction that says
        what it is (`reaction`); `lead`: the confidence of the candidate the answer leads with."""
        body = f"{self.trigger.marker}\n{markdown}"
        try:
            self._write(body)
        except ToolError as error:
            self._on_skip("GitHub answer comment", error.reason)
            return False
        self._react(reaction(outcome, lead))
        return True

    def _write(self, body: str) -> None:
        """Edit the answer comment; create it if it was never created or was deleted mid-run (404)."""
        if self.comment_id:
            try:
                self.thread.edit(self.comment_id, body)
                return
            except GitHubWriteError as error:
                if error.status != 404:
                    raise
        self.comment_id = self.thread.create(body)

    def _react(self, content: str) -> None:
        if self.trigger.comment_id is None:
            return
        try:
            self.thread.react(self.trigger.comment_id, content)
        except ToolError as error:
            self._on_skip(f"GitHub reaction '{content}'", error.reason)
