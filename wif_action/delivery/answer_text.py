"""The answer as each channel shows it: its own maintainer mention, plus delivery's skipped steps.

Why re-render instead of editing `answer.message`: Slack pings a group with
`<!subteam^ID>`, GitHub with `@org/team`, and a delivery failure (Slack down)
must appear as a skipped step. Rendering is a pure function of the Answer.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from wif_action.delivery.sanitize import sanitize
from wif_action.models import Answer, Outcome, Skipped
from wif_action.rendering import DEFAULT_MENTION, render


@dataclass
class AnswerText:
    """An Answer plus what is needed to render it again for any channel."""

    answer: Answer
    mention: str = DEFAULT_MENTION
    delivery_skipped: list[Skipped] = field(default_factory=list)

    @classmethod
    def of(cls, answer: Answer, mention: str = DEFAULT_MENTION) -> AnswerText:
        """Wrap the workflow's answer; `mention` is the one the workflow rendered it with."""
        return cls(answer=answer, mention=mention)

    @classmethod
    def failure(cls, reason: str) -> AnswerText:
        """A `failed` answer with a short reason (details belong on stderr, not here)."""
        answer = Answer(outcome=Outcome.FAILED, question=reason)
        answer.message = render(answer, DEFAULT_MENTION)
        return cls(answer=answer)

    def final(self) -> Answer:
        """The answer with delivery's skipped steps and the default-channel message."""
        answer = replace(self.answer, skipped=[*self.answer.skipped, *self.delivery_skipped])
        answer.message = self.markdown()
        return answer

    def markdown(self, mention: str | None = None, *, slack_group: str | None = None,
                 github_team: str | None = None) -> str:
        """Sanitised Markdown for one channel; only its own maintainer group may be pinged."""
        return sanitize(self._render(mention or self.mention), slack_group=slack_group, github_team=github_team)

    def _render(self, mention: str) -> str:
        skipped = [*self.answer.skipped, *self.delivery_skipped]
        return render(replace(self.answer, skipped=skipped), mention)

