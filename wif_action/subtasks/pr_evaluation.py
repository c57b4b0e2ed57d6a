"""Fetch, score and verify one PR — shared by the link check and the release-notes scan.

Each PR is fetched and scored at most once per run (memoised). A HIGH score
stays a candidate until the adversarial `verify_pr_match` confirms it; a
rejected one becomes MEDIUM with the verifier's reason.
"""

from __future__ import annotations

import re
from dataclasses import replace

from indexer.versions import display_version
from wif_action.candidate_order import filed_weight
from wif_action.models import (
    UNRELEASED_VERSION,
    Candidate,
    Confidence,
    Entry,
    Grounds,
    NearMiss,
    PullRequest,
    Release,
    Score,
    Via,
)
from wif_action.objections import weighed
from wif_action.ports import ToolError
from wif_action.question import Question
from wif_action.run_context import Run
from wif_action.subtasks.judging import judged

MAX_BODY_CHARS = 200_000
HELD = "held"  # `Candidate.source` of a line the customer already runs (`PrEvaluator.held`): a rival, never an answer
_QUOTE = re.compile(r"[“\"]([^”\"\n]{1,300})[”\"]")


def as_second_look(candidate: Candidate, why: str) -> Candidate:
    """A candidate listed only as a second look (a line far below its batch's best: `RelevantEntry.second_look`): at
    most MEDIUM, marked `second_look`, so it is listed after every other MEDIUM, objected or not, rivals no HIGH and
    leads only as the clear match (`candidate_order.clear_leader`, `_look_ahead`), and alone makes no answer
    (`scan_release_notes.no_answer_of_second_looks`). `objected` stays what the checks said (`objections.py`): an
    objected second look never leads."""
    return replace(candidate, confidence=Confidence.MEDIUM, second_look=True,
                   reason=f"{candidate.reason} (listed as a second look: {why})")


class PrEvaluator:
    def __init__(self, run: Run, repo: str, question: Question):
        self.run, self.repo, self.question, self.tools, self.journal = run, repo, question, run.tools, run.journal
        self._details: dict[tuple[str, int], PullRequest | None] = {}
        self._results: dict[tuple[str, int | str], Candidate | None] = {}
        self.near_misses: list[NearMiss] = []  # judged LOW: shown with a no_result so people see what was ruled out
        self._grounds: dict[tuple[str, int | str], Grounds] = {}
        self._held_grounds: dict[tuple[str, int | str], Grounds] = {}  # lines the customer already runs (`held`)

    def grounds(self, candidate: Candidate) -> Grounds | None:
        """What the candidate's level rests on (`models.Grounds`); None for one this evaluator did not judge."""
        key = candidate.pr if candidate.commit is None else f"commit:{candidate.commit}"
        judged_as = self._held_grounds if candidate.source == HELD else self._grounds
        return judged_as.get((candidate.repo or self.repo, key)) if key is not None else None

    def held(self, entry: Entry) -> Candidate | None:
        """A line of a release the customer already runs, judged as a rival of a later HIGH only
        (`candidate_order.older_rivals`), never as an answer: on its own words (no PR fetched: the cache's line
        is what the customer's release says it fixed), its HIGH double-checked as the scan's are, nothing
        journaled as read, no near miss listed; LOW too (the caller weighs it). None: a line citing no change, or
        one the engine could not judge.

        Why: the scan judges only releases after the customer's (the spec); a later fix of the same component
        then reaches ✓ while the line the customer already runs names the problem as well."""
        number = entry.prs[0] if entry.prs else None
        cited = None if number is not None else entry.cited_commit()
        if number is None and cited is None:
            return None
        release, repo = entry.release, entry.release.repo
        repo, commit = cited if cited is not None else (repo, None)
        pull = PullRequest(repo=repo, number=number or 0, title=entry.text[:500], merged=True, url="", commit=commit)
        try:
            score = judged(self.run, f"score a line of {display_version(release.tag)}",
                           lambda j: j.score_pr_confidence(pull, entry, self.question))
        except ToolError:
            return None
        strength, breadth, subjects, shares = score.strength, score.breadth, score.subjects, score.shares  # measured
        if score.confidence == Confidence.HIGH:
            try:
                verdict = judged(self.run, f"verify a line of {display_version(release.tag)}",
                                 lambda j: j.verify_pr_match(pull, entry, self.question))
            except ToolError:
                return None
            score = score if verdict.confirmed else replace(score, confidence=Confidence.MEDIUM)
        score, objected = weighed(score, pull, entry, self.question)
        key: int | str = number if number is not None else f"commit:{commit}"
        self._held_grounds[(repo, key)] = Grounds(subjects=subjects, own_text=False, shares=shares)
        return Candidate(version=display_version(release.tag), tag=release.tag, pr=number, url="",
                         confidence=score.confidence, reason=score.reason, entry=entry.text[:500], source=HELD,
                         repo=repo, objected=objected, commit=commit, strength=strength, breadth=breadth,
                         filed=filed_weight(entry.section, self.question.wants_functionality))

    @property
    def evaluated(self) -> int:
        return len(self._results)

    def details(self, number: int, repo: str | None = None) -> PullRequest | None:
        key = (repo or self.repo, int(number))
        if key not in self._details:
            try:
                pull = self.tools.github.pull_request(key[0], key[1])
                self.journal.read_pr(pull.number, pull.url)
            except ToolError as error:
                self.journal.skip(f"PR #{number} details", error.reason)
                pull = None
            self._details[key] = pull
        return self._details[key]

    def evaluate(self, number: int, entry: Entry | None, release: Release, source: str,
                 repo: str | None = None) -> Candidate | None:
        """A MEDIUM-or-better candidate, or None (LOW, or could not be judged)."""
        key = (repo or self.repo, int(number))
        if key not in self._results:
            self._results[key] = self._evaluate(key, entry, release, source)
        return self._results[key]

    def evaluate_commit(self, entry: Entry, release: Release, repo: str | None = None) -> Candidate | None:
        """A line that cites a commit and no PR, judged like a PR line with the note as its only text (there is
        no PR to fetch); the candidate names the commit, linked from the hash the line cites in the repository
        whose commit it is (another's when the line cites only that: `Entry.cited_commit`)."""
        cited = entry.cited_commit()
        if cited is None:
            return None
        where, sha = cited
        repo = where if where != entry.release.repo else repo or self.repo
        key = (repo, f"commit:{sha}")
        if key not in self._results:
            url = f"https://github.com/{repo}/commit/{sha}"
            self.journal.read_commit(sha, url)
            pull = PullRequest(repo=repo, number=0, title=entry.text[:500], merged=True, url=url, commit=sha)
            self._results[key] = self._judge(pull, entry, release, "scan", degraded=False)
        return self._results[key]

    def _evaluate(self, key: tuple[str, int], entry: Entry | None, release: Release,
                  source: str) -> Candidate | None:
        repo, number = key
        pull = self.details(number, repo)
        degraded = pull is None
        if pull is None:
            pull = PullRequest(repo=repo, number=number, title=entry.text if entry else f"PR #{number}",
                               url=f"https://github.com/{repo}/pull/{number}")
            self.journal.read_pr(number, pull.url)
        return self._judge(self._bounded(pull), entry, release, source, degraded)

    def _judge(self, pull: PullRequest, entry: Entry | None, release: Release, source: str,
               degraded: bool) -> Candidate | None:
        score = self._score(pull, entry)
        if score is None:
            return None
        strength, breadth = score.strength, score.breadth  # the engine's measures; the checks below may lower
        # the level, not the evidence
        subjects, shares, partly, thin = score.subjects, score.shares, score.partly, score.thin
        if score.confidence == Confidence.HIGH:
            score = self._verify(pull, entry, score)
        if degraded and score.confidence == Confidence.HIGH:
            score = Score(confidence=Confidence.MEDIUM, reason=score.reason + " (PR details unavailable)")
        confirmed = score.confidence == Confidence.HIGH
        score, objected = weighed(score, pull, entry, self.question)
        key = (pull.repo, pull.number if pull.commit is None else f"commit:{pull.commit}")
        self._grounds[key] = Grounds(subjects=subjects, own_text=not degraded and pull.commit is None, shares=shares,
                                     partly=partly, thin=thin,
                                     commit_line=pull.commit is not None,
                                     capped=confirmed and not objected and score.confidence != Confidence.HIGH)
        via = _via(entry)
        where = display_version(release.tag) + (f", bundling {via.repo.split('/')[-1]} {via.version}" if via else "")
        self.journal.note(f"{_change_name(pull, self.repo)} ({where}): {score.confidence.value} — {score.reason}")
        number = pull.number if pull.commit is None else None
        if score.confidence == Confidence.LOW:
            self.near_misses.append(NearMiss(version=display_version(release.tag), pr=number, url=pull.url,
                                             reason=score.reason, repo=pull.repo, commit=pull.commit))
            return None
        version = UNRELEASED_VERSION if release.unreleased else display_version(release.tag)
        return Candidate(version=version, tag=release.tag, pr=number, url=pull.url,
                         confidence=score.confidence, reason=score.reason,
                         entry=entry.text[:500] if entry else pull.title[:500], source=source, repo=pull.repo, via=via,
                         objected=objected, commit=pull.commit, unreleased=release.unreleased, strength=strength,
                         breadth=breadth, filed=filed_weight(entry.section if entry else None,
                                                             self.question.wants_functionality))

    @staticmethod
    def _bounded(pull: PullRequest) -> PullRequest:
        """Cap what any engine is handed; an engine that needs less (the OpenAI one: ~20k tokens)
        summarises the body itself, once per PR, so score and verify share the summary."""
        return replace(pull, body=pull.body[:MAX_BODY_CHARS])

    def _score(self, pull: PullRequest, entry: Entry | None) -> Score | None:
        question = self.question
        try:
            score = judged(self.run, f"score {_label(pull)}", lambda j: j.score_pr_confidence(pull, entry, question))
        except ToolError as error:
            self.journal.skip(f"score {_label(pull)}", error.reason)
            return None
        return self._checked(score, pull, entry)

    def _unread(self, reason: str, pull: PullRequest, entry: Entry | None) -> list[str]:
        """Versions, PRs and commits the reason names that the run never read. Verbatim quotes of the PR title
        or release note, and PRs and commits the note cites, are exempt; the same numbers outside quotes are
        claims (a note saying "fixed in 99.0.0" must not let an engine repeat that as its own)."""
        evidence = pull.title + " " + (entry.text if entry else "")
        unquoted = _QUOTE.sub(lambda m: " " if m.group(1) in evidence else m.group(0), reason)
        prs, commits = (entry.prs, entry.commit_hashes) if entry else ([], ())
        cited = " ".join([*(f"#{number}" for number in prs), *commits])
        return self.journal.unread_claims(unquoted, quoted=cited)

    def _shown(self, reason: str, entry: Entry | None) -> str:
        """A reason fit to show: versions, PRs and commits the run never read (quoted or not) blanked."""
        return self.journal.scrub_unread(reason, allowed_prs=tuple(entry.prs) if entry else (),
                                         allowed_commits=entry.commit_hashes if entry else ())

    def _checked(self, score: Score, pull: PullRequest, entry: Entry | None) -> Score:
        """Reject a reason that names a version or PR the run never read; blank any it quotes."""
        unread = self._unread(score.reason, pull, entry)
        if not unread:
            return replace(score, reason=self._shown(score.reason, entry))
        self.journal.rejected.append(f"score of {_label(pull)} named {', '.join(unread)}")
        self.journal.skip(f"score {_label(pull)}", "the engine's answer named data the run never read; ignored")
        confidence = Confidence.MEDIUM if score.confidence == Confidence.HIGH else score.confidence
        return Score(confidence=confidence, reason=self._shown(f"PR title \u201c{pull.title[:160]}\u201d.", entry))

    def _verify(self, pull: PullRequest, entry: Entry | None, score: Score) -> Score:
        question = self.question
        try:
            verdict = judged(self.run, f"verify {_label(pull)}", lambda j: j.verify_pr_match(pull, entry, question))
        except ToolError as error:
            self.journal.skip(f"verify {_label(pull)}", error.reason)
            return Score(confidence=Confidence.MEDIUM, reason=score.reason + " (could not be double-checked)")
        if self._unread(verdict.reason, pull, entry):
            self.journal.rejected.append(f"verdict on {_label(pull)} named data the run never read")
            return Score(confidence=Confidence.MEDIUM, reason=score.reason + " (double-check inconclusive)")
        if verdict.confirmed:
            return score
        doubt = self._shown(verdict.reason, entry)
        return Score(confidence=Confidence.MEDIUM, reason=f"{score.reason} A second check doubts it: {doubt}")


def _via(entry: Entry | None) -> Via | None:
    """The bundled SDK release an entry reached the customer's SDK through (None for its own entries)."""
    if entry is None or entry.bundled_in is None:
        return None
    return Via(repo=entry.release.repo, version=display_version(entry.release.tag))


def _change_name(pull: PullRequest, own: str) -> str:
    """`PR #12`, `PR owner/repo#12`, or `commit 92e109c` for a line that cites no PR."""
    if pull.commit is not None:
        return f"Commit {pull.commit[:7]}" if pull.repo == own else f"Commit {pull.repo}@{pull.commit[:7]}"
    return f"PR #{pull.number}" if pull.repo == own else f"PR {pull.repo}#{pull.number}"


def _label(pull: PullRequest) -> str:
    return f"commit {pull.commit[:7]}" if pull.commit is not None else f"PR #{pull.number}"
