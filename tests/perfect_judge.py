"""A fake LLM that judges like a perfect one: it knows each labelled case's answer and reads the prompt as a
model would (the problem and request blocks say which question it is asked; entry lines and PR headers say
what it is shown). With it, `wif eval --engine openai` measures what the LLM path lets a judge find: a fix
the workflow never shows it (cut from a batch, never fetched) is a miss no model could avoid.
"""

from __future__ import annotations

import re
from typing import Any

from packaging.version import InvalidVersion, Version

from indexer.versions import VERSION_IN_TEXT
from tests.fakes.openai_server import requested_schema
from wif_action.evaluation import Case

_JUDGED = {"ExtractedRequest", "RepositoryChoice", "RelevantEntries", "PRScore", "PRVerdict"}
_ENTRY = re.compile(r"^\[(\d+)\] (.*)$", re.MULTILINE)


def _flat(text: str) -> str:
    return " ".join(text.split())


class PerfectJudge:
    """Responder for FakeOpenAI over a list of cases (both input modes)."""

    def __init__(self, cases: list[Case]):
        self.cases = cases
        self.unmatched: list[str] = []  # prompts that matched no case (should stay empty)
        # what a prompt quotes of each case (flattened once, not once per prompt and case)
        self._messages = [(c, _flat(c.message)[:300]) for c in cases if c.message]
        self._problems = [(c, _flat(c.problem)[:300]) for c in cases if c.problem]

    def __call__(self, request: dict[str, Any]) -> Any:
        schema, _ = requested_schema(request)
        user = _flat(request["messages"][-1]["content"])
        case = self._case(user, schema)
        if case is None:
            if schema in _JUDGED:  # (the endpoint check before the first case names no question)
                self.unmatched.append(f"{schema}: {user[:200]}")
            return None
        fixes = {(ref.pr, ref.repo or case.expect.pr_repo or case.repo) for ref in case.expect.fixes()}
        if schema == "ExtractedRequest":
            return {"sdk": case.sdk, "version": _as_typed(case), "problem": case.problem or "",
                    "links": list(case.links)}
        if schema == "RepositoryChoice":
            return {"reason": "The request names this SDK.",
                    "repository": case.repo if case.repo and case.repo in user else None}
        if schema == "RelevantEntries":
            content = request["messages"][-1]["content"]
            ids = [int(m.group(1)) for m in _ENTRY.finditer(content)
                   if any(_cites(m.group(2), pr, repo, case.repo) for pr, repo in fixes)]
            return {"entries": [{"id": i, "pr": None, "reason": "It fixes the reported symptom.", "relevance": 0.95}
                                for i in ids]}
        hit = any(f"PR #{pr} in {repo} " in user for pr, repo in fixes)
        if schema == "PRScore":
            return {"reason": "The change matches the symptom." if hit else "Unrelated change.",
                    "confidence": "high" if hit else "low"}
        if schema == "PRVerdict":
            return {"reason": "The fix mechanism matches." if hit else "It does not address the symptom.",
                    "objection": None if hit else "Different symptom.", "confirmed": hit}
        return None

    def _case(self, user: str, schema: str | None) -> Case | None:
        by_message = next((c for c, quoted in self._messages if quoted in user), None)
        if schema == "ExtractedRequest":
            return by_message
        found = [c for c, quoted in self._problems if quoted in user]
        return max(found, key=lambda c: len(c.problem or ""), default=by_message)


def _as_typed(case: Case) -> str | None:
    """The customer's version as the message writes it ("2.15.0" for a case labelled "v2.15.0")."""
    if not case.version:
        return None
    for token in (m.group(0) for m in VERSION_IN_TEXT.finditer(case.message or "")):
        try:
            if Version(token) == Version(case.version):
                return token
        except InvalidVersion:
            continue
    return None


def _cites(line: str, pr: int, repo: str | None, asked_repo: str | None) -> bool:
    """Whether an entry line cites PR `pr` of `repo` (a bundled SDK's line names its own repository)."""
    bundled = re.match(r"\(release \S+ of (\S+), bundled in", line)
    line_repo = bundled.group(1) if bundled else asked_repo
    return line_repo == repo and re.search(rf"#{pr}\b", line) is not None
