"""Slack delivery: progress in one edited thread message, the answer as a new reply.

Why a new reply for the answer (not a final edit): an edit notifies no one,
while a new reply notifies the thread's participants and the mentioned group.
Every Slack failure is reported through `on_skip` and never stops the run.
"""

from __future__ import annotations

from collections.abc import Callable

from wif_action.delivery.sanitize import sanitize
from wif_action.delivery.slack_thread import thread_text
from wif_action.delivery.throttle import ThrottledLines
from wif_action.ports import ToolError
from wif_action.tools.slack import SlackClient

Skip = Callable[[str, str], None]


class SlackProgress:
    """A Progress sink: posts "Analyzing…" in the thread, then edits it as checkpoints arrive."""

    def __init__(self, slack: SlackClient, channel: str, thread_ts: str, on_skip: Skip, interval: float = 1.0):
        self._slack, self._channel, self._thread_ts, self._on_skip = slack, channel, thread_ts, on_skip
        self._message: tuple[str, str] | None = None
        self._lines = ThrottledLines(self._push, interval)

    def checkpoint(self, text: str) -> None:
        self._guard(lambda: self._lines.add(sanitize(text)))

    def finish(self, text: str) -> None:
        def final() -> None:
            self._lines.add(sanitize(text))
            self._lines.flush()
        self._guard(final)

    def _guard(self, action: Callable[[], None]) -> None:
        try:
            action()
        except ToolError as error:  # FanOutProgress drops this sink after the re-raise
            self._on_skip("Slack progress updates", error.reason)
            raise

    def _push(self, lines: list[str]) -> None:
        body = "⏳ *WIF is looking into this*\n" + "\n".join(f"- {line}" for line in lines)
        if self._message is None:
            self._message = self._slack.post(self._channel, body, thread_ts=self._thread_ts)
        else:
            self._slack.update(*self._message, body)


class SlackDelivery:
    """One Slack thread for one question: reads it, opens it if needed, and posts the answer there."""

    def __init__(self, slack: SlackClient, channel: str, thread_ts: str | None, on_skip: Skip,
                 interval: float = 1.0):
        self.slack, self.channel, self.thread_ts = slack, channel, thread_ts
        self._on_skip, self._interval = on_skip, interval
        self.usable = True

    def read_thread(self) -> str:
        """The thread as request text ("" when there is no thread or the token may not read it)."""
        if not self.thread_ts:
            return ""
        try:
            return thread_text(self.slack.thread(self.channel, self.thread_ts))
        except ToolError as error:
            self._on_skip("reading the Slack thread", error.reason)
            return ""

    def open_thread(self, question: str) -> None:
        """Without a thread, post a parent message quoting the question and thread under it."""
        if self.thread_ts:
            return
        quoted = "\n".join(f"> {line}" for line in sanitize(question).splitlines() or [""])
        try:
            _channel, self.thread_ts = self.slack.post(self.channel, f"*Was it fixed?*\n{quoted}")
        except ToolError as error:
            self.usable = False
            self._on_skip("Slack thread", error.reason)

    def progress(self) -> SlackProgress | None:
        if not (self.usable and self.thread_ts):
            return None
        return SlackProgress(self.slack, self.channel, self.thread_ts, self._on_skip, self._interval)

    def post_answer(self, markdown: str) -> bool:
        """The answer as a new reply; False (and a skipped step) when Slack refused it."""
        if not self.usable:
            return False
        try:
            self.slack.post(self.channel, markdown, thread_ts=self.thread_ts)
            return True
        except ToolError as error:
            self._on_skip("Slack answer", error.reason)
            return False
