"""`wif action`'s run: trigger → channels → workflow → delivery (the command itself is `commands/action.py`,
which loads this, and with it every client, only when the Action runs — not for `--help`)."""


from __future__ import annotations

import json
import os
import sys
import traceback
import uuid
from collections.abc import Callable, Mapping
from pathlib import Path

from indexer.redaction import Redactor
from wif_action.app import slack_client
from wif_action.commands.action_cache import open_workflow
from wif_action.delivery.answer_text import AnswerText
from wif_action.delivery.comment_progress import CommentDelivery
from wif_action.delivery.github_event import MAX_REQUEST_CHARS, Trigger, load_trigger
from wif_action.delivery.outputs import answer_outputs, append_summary, summary_markdown, write_outputs
from wif_action.delivery.sanitize import github_mention, sanitize, slack_mention
from wif_action.delivery.settings import ActionSettings, ConfigError
from wif_action.delivery.slack_progress import SlackDelivery
from wif_action.models import Answer, AskInput, Skipped, from_json, to_json
from wif_action.rendering import DEFAULT_MENTION
from wif_action.tools.progress import ConsoleProgress, FanOutProgress, RecordingProgress


def run_action() -> int:
    """The Action's run from this process's environment (`wif action`)."""
    env = dict(os.environ)
    action = ActionRun(env)
    try:
        return action.execute()
    except Exception:  # last resort: the contract says a failed answer, not a traceback
        print_traceback(action.redactor)
        action.finish(AnswerText.failure("an unexpected error stopped WIF (details are in the job log)."))
        return 0


class ActionRun:
    """One Action run: trigger → channels → workflow → delivery."""

    def __init__(self, env: Mapping[str, str]):
        self.env = env
        self.settings = ActionSettings()
        self.skips: list[Skipped] = []
        self.slack: SlackDelivery | None = None
        self.comment: CommentDelivery | None = None
        self.recording = RecordingProgress()
        self.question = ""
        self.maintainers: dict = {}
        self.redactor = Redactor(env)

    def execute(self) -> int:
        try:
            self.settings = ActionSettings.from_env(self.env)
        except ConfigError as error:
            self.finish(AnswerText.failure(self.redactor.text(str(error)) or ""))
            return 2
        trigger = load_trigger(self.env)
        if trigger.ignore:
            return self.ignored(trigger)
        self.open_channels(trigger)
        ask = self.ask_input(trigger)
        self.question = self.redactor.text(question_text(ask)) or ""
        self.start_channels()
        text, code = self.answer(ask)
        self.deliver(text)
        return code

    def skip(self, step: str, reason: str) -> None:
        reason = self.redactor.text(reason) or ""
        print(f"WIF: skipped {step}: {reason}", file=sys.stderr)
        entry = Skipped(step=step, reason=reason[:300])
        if entry not in self.skips:
            self.skips.append(entry)

    def ignored(self, trigger: Trigger) -> int:
        print(f"WIF: nothing to do: {trigger.ignore}.", file=sys.stderr)
        append_summary(self.env.get("GITHUB_STEP_SUMMARY"), f"## WIF\n\nNothing to do: {trigger.ignore}.")
        write_outputs(self.env.get("GITHUB_OUTPUT"), {"outcome": "ignored"})
        return 0

    def open_channels(self, trigger: Trigger) -> None:
        for warning in self.settings.warnings:
            self.skip("Slack delivery", warning)
        if self.settings.slack_channel:
            self.slack = self._slack_delivery()
        if trigger.is_comment and trigger.repo and trigger.issue:
            from wif_action.app import write_github
            from wif_action.tools.github_issues import IssueThread

            thread = IssueThread(write_github(self.env), trigger.repo, trigger.issue)
            self.comment = CommentDelivery(thread, trigger, self.skip, self.settings.progress_interval)

    def _slack_delivery(self) -> SlackDelivery | None:

        client = slack_client(self.env)
        if client is None:
            self.skip("Slack delivery", "no Slack bot token (set the slack-bot-token input)")
            return None
        return SlackDelivery(client, self.settings.slack_channel, self.settings.slack_thread_ts or None,
                             self.skip, self.settings.progress_interval)

    def ask_input(self, trigger: Trigger) -> AskInput:
        """Fields from the inputs (or `/wif` hints); free text from the comment, message and Slack thread."""
        s = self.settings
        hints = trigger.command.hints if trigger.is_comment and trigger.command else {}
        links = [*(trigger.command.links if hints and trigger.command else []), *s.links]
        thread = self.slack.read_thread() if self.slack else ""
        message = "\n\n".join(p for p in (trigger.request_text, s.message, thread) if p)[:MAX_REQUEST_CHARS]
        return AskInput(sdk=hints.get("sdk") or s.sdk or None, repo=hints.get("repo") or None,
                        version=hints.get("version") or s.version or None,
                        problem=hints.get("problem") or s.problem or None, links=links, message=message or None)

    def start_channels(self) -> None:
        if self.slack:
            self.slack.open_thread(self.question or "(no question text)")
        if self.comment:
            self.comment.start()

    def answer(self, ask: AskInput) -> tuple[AnswerText, int]:
        sinks = [sink for sink in (self.slack and self.slack.progress(), self.comment and self.comment.progress())
                 if sink]
        progress = FanOutProgress(ConsoleProgress(), self.recording, *sinks)
        try:
            workflow = open_workflow(self.settings, ask, self.env, progress, log)
            answer = workflow.run(ask)
        except ConfigError as error:
            return AnswerText.failure(self.redactor.text(str(error)) or ""), 2
        except Exception:
            print_traceback(self.redactor)
            return AnswerText.failure("an unexpected error stopped the analysis (details are in the job log)."), 0
        for dropped in progress.errors:
            print(f"WIF: progress sink dropped: {self.redactor.text(dropped)}", file=sys.stderr)
        if answer.repo:
            self.maintainers = workflow.registry.maintainers(answer.repo)
        return AnswerText.of(self.redacted(answer), workflow.mention_for(answer.repo)), 0

    def redacted(self, answer: Answer) -> Answer:
        """The answer with any secret of this run removed (an upstream may have echoed one)."""
        return from_json(Answer, self.redactor.value(to_json(answer)))

    def deliver(self, text: AnswerText) -> None:
        """Slack reply and issue comment first (their failures become skipped steps), then outputs."""
        text.delivery_skipped = self.skips
        group, team = self.maintainers.get("slack_group_id"), self.maintainers.get("github_team")
        slack, comment = self.slack, self.comment
        if slack:
            self._guarded("Slack answer", lambda: slack.post_answer(
                text.markdown(slack_mention(group), slack_group=group)))
        if comment:
            self._guarded("GitHub answer comment", lambda: comment.post_answer(
                text.markdown(github_mention(team) or DEFAULT_MENTION, github_team=team), text.answer.outcome,
                text.answer.candidates[0].confidence if text.answer.candidates else None))
        self.finish(text)

    def _guarded(self, step: str, deliver: Callable[[], object]) -> None:
        try:
            deliver()
        except Exception as error:  # a delivery bug must not cost the summary and outputs
            print_traceback(self.redactor)
            self.skip(step, f"unexpected {type(error).__name__}")

    def finish(self, text: AnswerText) -> None:
        """Result JSON, step outputs, job summary and the job log: written whatever happened before."""
        text.delivery_skipped = self.skips
        final = text.final()
        path = self._write_json(final.public_json())
        self._file_channel("step outputs (GITHUB_OUTPUT)",
                           lambda: write_outputs(self.env.get("GITHUB_OUTPUT"), answer_outputs(final, path)))
        summary = summary_markdown(final, sanitize(self.question), self.recording.lines)
        self._file_channel("job summary (GITHUB_STEP_SUMMARY)",
                           lambda: append_summary(self.env.get("GITHUB_STEP_SUMMARY"), summary))
        print_quoted(final.message)

    def _file_channel(self, name: str, write: Callable[[], None]) -> None:
        """A runner file that cannot be written (disk full, no permission) costs that channel only."""
        try:
            write()
        except OSError as error:
            print(f"WIF: could not write the {name}: {self.redactor.text(error.strerror or str(error))}; "
                  "the answer is in the job log below", file=sys.stderr)

    def _write_json(self, data: dict) -> str:
        path = Path(self.settings.result_json or "wif-result.json")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(data, ensure_ascii=False, indent=2), encoding="utf-8")
        except OSError as error:
            print(f"WIF: cannot write {path}: {error}", file=sys.stderr)
            return ""
        return str(path)


def question_text(ask: AskInput) -> str:
    """The question as people gave it, for the Slack parent message and the job summary."""
    head = " ".join(part for part in (ask.sdk or ask.repo, ask.version) if part)
    lines = [f"{head}: {ask.problem}" if head and ask.problem else head or ask.problem or ""]
    lines += ask.links
    if ask.message and not ask.problem:
        lines.append(ask.message)
    return "\n".join(line for line in lines if line).strip()


def print_traceback(redactor: Redactor) -> None:
    """The current exception's traceback for the job log, with secrets redacted (an upstream may have
    echoed a token into the error)."""
    print(redactor.text(traceback.format_exc()), file=sys.stderr)


def log(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def print_quoted(markdown: str) -> None:
    """Print text from others without letting a line like `::error::` act as a workflow command."""
    token = f"wif-{uuid.uuid4().hex}"
    print(f"::stop-commands::{token}")
    print(markdown)
    print(f"::{token}::", flush=True)
