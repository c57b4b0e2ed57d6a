"""What a run emits for observers (run records): a tiny typed event bus.

Why: run records used to patch `LLMClient.on_call` and subclass `Workflow` to
see a run. Now the workflow emits run and step events and the LLM client emits
one event per call, to whoever subscribed; nobody is patched, and a subscriber
that fails never changes the run (it is reported on stderr and skipped).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from wif_action.models import Answer, AskInput

if TYPE_CHECKING:  # the offline path never imports the OpenAI client
    from wif_action.tools.llm import LLMCallRecord


@dataclass(frozen=True)
class RunStarted:
    inputs: AskInput


@dataclass(frozen=True)
class RunFinished:
    answer: Answer | None
    error: BaseException | None = None


@dataclass(frozen=True)
class StepStarted:
    name: str


@dataclass(frozen=True)
class StepFinished:
    name: str
    outcome: str


@dataclass(frozen=True)
class LlmCalled:
    record: LLMCallRecord


Event = RunStarted | RunFinished | StepStarted | StepFinished | LlmCalled
Subscriber = Callable[[Event], None]


@dataclass
class Events:
    """Delivers each event to every subscriber, in subscription order."""

    subscribers: list[Subscriber] = field(default_factory=list)

    def subscribe(self, subscriber: Subscriber) -> None:
        self.subscribers.append(subscriber)

    def emit(self, event: Event) -> None:
        for subscriber in self.subscribers:
            try:
                subscriber(event)
            except Exception as failure:  # observing must never break the run
                print(f"wif: an observer dropped a {type(event).__name__} event ({type(failure).__name__})",
                      file=sys.stderr)

    def llm_called(self, record: LLMCallRecord) -> None:
        """`LLMClient(on_call=...)` target: one LLM call as an event."""
        self.emit(LlmCalled(record))
