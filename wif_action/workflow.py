"""The analyze workflow: sequences the six subtasks and reports progress. Nothing else.

Order (spec): extract request → resolve repository → check links → fetch
release range → scan release notes → resolve answer. Any subtask may end the
run early; the answer subtask always runs, so every path produces an Answer —
even when a subtask fails unexpectedly (the answer is then `failed`).

The run has a deadline (tools/deadline.py): once it passes, GitHub and the
primary engine are no longer called; the cache and the offline engine still answer.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from indexer.registry import Registry
from indexer.versions import display_version, parse_tag
from wif_action import lexicon
from wif_action.events import Events, RunFinished, RunStarted, StepFinished, StepStarted
from wif_action.journal import Journal
from wif_action.models import (
    Answer,
    AskInput,
    Candidate,
    Confidence,
    ExtractedRequest,
    Outcome,
    Release,
    Request,
)
from wif_action.ports import AnalysisTools, CacheReadError, Progress
from wif_action.question import question_of
from wif_action.run_context import Run, WorkflowOptions, mention_for
from wif_action.subtasks.check_links import LinkResult, check_links
from wif_action.subtasks.extract_request import (
    confirm_tentative_version,
    extract_request,
    from_message,
    missing_field_question,
)
from wif_action.subtasks.fetch_release_range import fetch_release_range
from wif_action.subtasks.pr_evaluation import PrEvaluator
from wif_action.subtasks.resolve_answer import Findings, resolve_answer
from wif_action.subtasks.resolve_repository import resolve_repository
from wif_action.subtasks.scan_release_notes import scan_release_notes
from wif_action.subtasks.unreleased_notes import check_unreleased
from wif_action.tools.deadline import until_deadline

_log = logging.getLogger(__name__)
T = TypeVar("T")


def _outcome(result: Any) -> object:
    """What a step's event reports of its result: every subtask's result has an `outcome`."""
    return result.outcome


@dataclass
class Workflow:
    tools: AnalysisTools
    registry: Registry
    progress: Progress
    options: WorkflowOptions = field(default_factory=WorkflowOptions)
    events: Events = field(default_factory=Events)

    def _step(self, name: str, call: Callable[[], T], outcome_of: Callable[[T], object] = _outcome) -> T:
        """Run one subtask between step events."""
        self.events.emit(StepStarted(name))
        try:
            result = call()
        except Exception:
            self.events.emit(StepFinished(name, "error"))
            raise
        self.events.emit(StepFinished(name, str(outcome_of(result))))
        return result

    def run(self, inputs: AskInput) -> Answer:
        """The answer to one question; RunStarted/RunFinished bracket it for observers."""
        self.events.emit(RunStarted(inputs))
        try:
            with lexicon.input_mode("message" if from_message(inputs) else "fields"):  # its weights, every read
                answer = self._run(inputs)
        except BaseException as error:
            self.events.emit(RunFinished(None, error))
            raise
        self.events.emit(RunFinished(answer))
        return answer

    def _run(self, inputs: AskInput) -> Answer:
        journal = Journal(deadline=time.monotonic() + self.options.deadline_seconds)
        self.progress.checkpoint("Analyzing…")
        engine_rejections = len(self.tools.judge.rejected_claims)
        run = Run(tools=until_deadline(self.tools, journal), journal=journal, progress=self.progress,
                  options=self.options, registry=self.registry)
        try:
            findings = self._analyze(inputs, run)
        except CacheReadError as error:  # never an answer from a half-read cache
            journal.skip("analysis", f"the release cache could not be read ({error.reason})")
            findings = Findings(outcome=Outcome.FAILED, user_version=inputs.version,
                                question=f"the release cache could not be read ({error.reason}).")
        except Exception as error:  # a bug must still end in an answer; the traceback goes to the log
            _log.exception("the analysis stopped on an unexpected error")
            journal.skip("analysis", f"stopped by an unexpected {type(error).__name__}")
            findings = Findings(outcome=Outcome.FAILED, user_version=inputs.version,
                                question="an unexpected error stopped the analysis (details are in the log).")
        journal.rejected += self.tools.judge.rejected_claims[engine_rejections:]
        answer = self._step("resolve_answer", lambda: resolve_answer(run, findings))
        self.progress.finish("Failed." if answer.outcome == Outcome.FAILED else "Done.")
        return answer

    def _analyze(self, inputs: AskInput, run: Run) -> Findings:
        extracted = self._step("extract_request", lambda: extract_request(run, inputs))
        request = extracted.request
        understood = ExtractedRequest(sdk=request.sdk, repo=request.repo, version=request.version,
                                      problem=request.problem, links=list(request.links), sources=extracted.sources)
        findings = Findings(user_version=request.version, question=extracted.question, request=understood,
                            max_releases=run.options.max_releases)
        if extracted.outcome != "ok" and not (request.sdk or request.repo or request.version):
            return replace(findings, outcome=Outcome.NEEDS_CLARIFICATION)
        repository = self._step("resolve_repository", lambda: resolve_repository(run, request))
        findings.repo = repository.repo
        if repository.repo and understood.repo is None:
            understood.repo = repository.repo
            understood.sources["repo"] = "inferred" if repository.inferred else "registry"
        if repository.outcome != "ok":
            return self._stop(findings, Outcome(repository.outcome), repository.message)
        repo = repository.repo
        assert repo is not None  # an "ok" resolution names the repository
        request = self._confirmed_version(run, request, repo, findings)
        question = missing_field_question(replace(request, repo=repo))
        if question:
            return replace(findings, outcome=Outcome.NEEDS_CLARIFICATION, question=question)
        return self._analyze_repository(run, request, repo, findings)

    @staticmethod
    def _confirmed_version(run: Run, request: Request, repo: str, findings: Findings) -> Request:
        """The tentative version taken when the repository released it; the findings say so."""
        confirmed = confirm_tentative_version(run, request, repo)
        if confirmed.version != request.version and findings.request is not None:
            findings.user_version = findings.request.version = confirmed.version
            findings.request.sources["version"] = "message"
        return confirmed

    def _analyze_repository(self, run: Run, request: Request, repo: str, findings: Findings) -> Findings:
        tools, journal = run.tools, run.journal
        evaluator = PrEvaluator(run, repo, question_of(request, self.registry, repo))  # the question, analysed once
        version = request.version or ""
        user_release = tools.cache.find_release(repo, version) if parse_tag(version) else None
        if user_release is not None:  # the prompts show the customer's version: a reason citing it cites data read
            journal.read_version(version, user_release.version, display_version(user_release.tag))
        links = self._links(run, request, repo, user_release, evaluator)  # needs a user release
        if links.outcome == "high":
            return replace(findings, candidates=links.candidates, user_release=user_release,
                                               prs_evaluated=evaluator.evaluated)
        span = self._step("fetch_release_range", lambda: fetch_release_range(run, repo, version))
        findings.user_release = span.user_release
        if span.outcome == "already_latest":  # before saying so: was it fixed on the default branch?
            return self._unreleased(run, repo, span.latest, evaluator, links.candidates, findings)
        if span.outcome != "ok":
            outcome = Outcome(span.outcome)
            return self._stop(findings, outcome, span.message) if span.message else \
                replace(findings, outcome=outcome)
        user_release = span.user_release
        assert user_release is not None  # an "ok" range starts after the customer's release
        first, last = display_version(span.releases[0].tag), display_version(span.releases[-1].tag)
        self.progress.checkpoint(f"Scanning releases {first}–{last} ({len(span.releases)} releases)…")
        scan = self._step("scan_release_notes", lambda: scan_release_notes(
            run, repo, user_release, span.releases, evaluator, known=links.candidates,
        ), lambda scan: f"{len(scan.candidates)} candidates")
        if not scan.complete and not scan.candidates and not scan.entries_reviewed:
            reason = ("the run's deadline was reached before the release notes were judged." if journal.expired()
                      else "the release notes could not be read or judged.")
            return self._stop(findings, Outcome.FAILED, reason)
        findings = replace(findings, candidates=scan.candidates, scanned=scan.scanned,
                                               entries_reviewed=scan.entries_reviewed)
        if not any(c.confidence == Confidence.HIGH for c in scan.candidates) and scan.complete:
            return self._unreleased(run, repo, span.latest, evaluator, scan.candidates, findings)
        return replace(findings, prs_evaluated=evaluator.evaluated, near_misses=evaluator.near_misses)

    def _unreleased(self, run: Run, repo: str, latest: Release | None, evaluator: PrEvaluator,
                    known: list[Candidate], findings: Findings) -> Findings:
        """The Unreleased notes as one last batch; without them (or a match) the spec's outcomes stand:
        already_latest when nothing newer was there to judge, else what the scan found."""
        result = self._step("check_unreleased", lambda: check_unreleased(
            run, repo, latest, evaluator, known), lambda r: f"{len(r.candidates)} candidates")
        on_latest = not findings.scanned
        judged_nothing = on_latest and not result.check.checked and not result.candidates
        findings = replace(findings, candidates=[*known, *result.candidates], unreleased=result.check,
                           prs_evaluated=evaluator.evaluated, near_misses=evaluator.near_misses, on_latest=on_latest)
        return replace(findings, outcome=Outcome.ALREADY_LATEST) if judged_nothing else findings

    def _links(self, run: Run, request: Request, repo: str, user_release: Release | None,
               evaluator: PrEvaluator) -> LinkResult:
        if not request.links or user_release is None:
            return LinkResult(outcome="fall_through")
        self.progress.checkpoint("Checking linked issues…")
        return self._step("check_links", lambda: check_links(run, request.links, repo, user_release, evaluator))

    @staticmethod
    def _stop(findings: Findings, outcome: Outcome, message: str) -> Findings:
        return replace(findings, outcome=outcome, question=message)

    def mention_for(self, repo: str | None) -> str:
        """How answers about `repo` name its maintainers (the registry's GitHub team, if any)."""
        return mention_for(self.options, self.registry, repo)

